// The names of Naemon's standard macros and what kind of object each reads. Internal to
// engine/macros/macro*.cpp; callers use engine/macros/macros.hpp. Constant tables, read on the core thread
// as the macros are.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace vedette::engine::macro_internal {

// Naemon's macro names (macros.h), each once, grouped by kind: the is_*_code ranges below rely on it. The
// order is otherwise ours, and environment_macros exports in it.
// clang-format off
#define VEDETTE_MACROS(X) \
  /* host */ \
  X(HOSTNAME) X(HOSTDISPLAYNAME) X(HOSTALIAS) X(HOSTADDRESS) X(HOSTSTATE) X(HOSTSTATEID) \
  X(LASTHOSTSTATE) X(LASTHOSTSTATEID) X(HOSTCHECKTYPE) X(HOSTSTATETYPE) X(HOSTOUTPUT) X(LONGHOSTOUTPUT) \
  X(HOSTPERFDATA) X(HOSTCHECKCOMMAND) X(HOSTATTEMPT) X(MAXHOSTATTEMPTS) X(HOSTDOWNTIME) X(HOSTPERCENTCHANGE) \
  X(HOSTDURATIONSEC) X(HOSTDURATION) X(HOSTEXECUTIONTIME) X(HOSTLATENCY) X(LASTHOSTCHECK) X(LASTHOSTSTATECHANGE) \
  X(LASTHOSTUP) X(LASTHOSTDOWN) X(LASTHOSTUNREACHABLE) X(HOSTNOTIFICATIONNUMBER) X(HOSTNOTIFICATIONID) X(HOSTEVENTID) \
  X(LASTHOSTEVENTID) X(HOSTPROBLEMID) X(LASTHOSTPROBLEMID) X(HOSTPROBLEMSTART) X(HOSTPROBLEMEND) X(HOSTPROBLEMDURATIONSEC) \
  X(HOSTPROBLEMDURATION) X(HOSTACTIONURL) X(HOSTNOTESURL) X(HOSTNOTES) X(HOSTGROUPNAMES) X(TOTALHOSTSERVICES) \
  X(TOTALHOSTSERVICESOK) X(TOTALHOSTSERVICESWARNING) X(TOTALHOSTSERVICESUNKNOWN) X(TOTALHOSTSERVICESCRITICAL) X(HOSTACKAUTHOR) X(HOSTACKAUTHORNAME) \
  X(HOSTACKAUTHORALIAS) X(HOSTACKCOMMENT) \
  /* hostgroup */ \
  X(HOSTGROUPNAME) X(HOSTGROUPALIAS) X(HOSTGROUPMEMBERS) X(HOSTGROUPACTIONURL) X(HOSTGROUPNOTESURL) X(HOSTGROUPNOTES) \
  /* service */ \
  X(SERVICEDESC) X(SERVICEDISPLAYNAME) X(SERVICEOUTPUT) X(LONGSERVICEOUTPUT) X(SERVICEPERFDATA) X(SERVICECHECKCOMMAND) \
  X(SERVICECHECKTYPE) X(SERVICESTATETYPE) X(SERVICESTATE) X(SERVICESTATEID) X(LASTSERVICESTATE) X(LASTSERVICESTATEID) \
  X(SERVICEISVOLATILE) X(SERVICEATTEMPT) X(MAXSERVICEATTEMPTS) X(SERVICEEXECUTIONTIME) X(SERVICELATENCY) X(LASTSERVICECHECK) \
  X(LASTSERVICESTATECHANGE) X(LASTSERVICEOK) X(LASTSERVICEWARNING) X(LASTSERVICEUNKNOWN) X(LASTSERVICECRITICAL) X(SERVICEDOWNTIME) \
  X(SERVICEPERCENTCHANGE) X(SERVICEDURATIONSEC) X(SERVICEDURATION) X(SERVICENOTIFICATIONNUMBER) X(SERVICENOTIFICATIONID) X(SERVICEEVENTID) \
  X(LASTSERVICEEVENTID) X(SERVICEPROBLEMID) X(LASTSERVICEPROBLEMID) X(SERVICEPROBLEMSTART) X(SERVICEPROBLEMEND) X(SERVICEPROBLEMDURATIONSEC) \
  X(SERVICEPROBLEMDURATION) X(SERVICEACTIONURL) X(SERVICENOTESURL) X(SERVICENOTES) X(SERVICEGROUPNAMES) X(SERVICEACKAUTHOR) \
  X(SERVICEACKAUTHORNAME) X(SERVICEACKAUTHORALIAS) X(SERVICEACKCOMMENT) \
  /* servicegroup */ \
  X(SERVICEGROUPNAME) X(SERVICEGROUPALIAS) X(SERVICEGROUPMEMBERS) X(SERVICEGROUPACTIONURL) X(SERVICEGROUPNOTESURL) X(SERVICEGROUPNOTES) \
  /* contact */ \
  X(CONTACTNAME) X(CONTACTALIAS) X(CONTACTEMAIL) X(CONTACTPAGER) X(CONTACTGROUPNAMES) \
  /* contactgroup */ \
  X(CONTACTGROUPNAME) X(CONTACTGROUPALIAS) X(CONTACTGROUPMEMBERS) \
  /* notification */ \
  X(NOTIFICATIONTYPE) X(NOTIFICATIONNUMBER) X(NOTIFICATIONRECIPIENTS) X(NOTIFICATIONISESCALATED) X(NOTIFICATIONAUTHOR) X(NOTIFICATIONAUTHORNAME) \
  X(NOTIFICATIONAUTHORALIAS) X(NOTIFICATIONCOMMENT) \
  /* date and time */ \
  X(LONGDATETIME) X(SHORTDATETIME) X(DATE) X(TIME) X(TIMET) X(ISVALIDTIME) \
  X(NEXTVALIDTIME) \
  /* static */ \
  X(ADMINEMAIL) X(ADMINPAGER) X(MAINCONFIGFILE) X(STATUSDATAFILE) X(RETENTIONDATAFILE) X(OBJECTCACHEFILE) \
  X(TEMPFILE) X(LOGFILE) X(RESOURCEFILE) X(COMMANDFILE) X(HOSTPERFDATAFILE) X(SERVICEPERFDATAFILE) \
  X(PROCESSSTARTTIME) X(TEMPPATH) X(EVENTSTARTTIME) \
  /* summary */ \
  X(TOTALHOSTSUP) X(TOTALHOSTSDOWN) X(TOTALHOSTSUNREACHABLE) X(TOTALHOSTSDOWNUNHANDLED) X(TOTALHOSTSUNREACHABLEUNHANDLED) X(TOTALHOSTPROBLEMS) \
  X(TOTALHOSTPROBLEMSUNHANDLED) X(TOTALSERVICESOK) X(TOTALSERVICESWARNING) X(TOTALSERVICESCRITICAL) X(TOTALSERVICESUNKNOWN) X(TOTALSERVICESWARNINGUNHANDLED) \
  X(TOTALSERVICESCRITICALUNHANDLED) X(TOTALSERVICESUNKNOWNUNHANDLED) X(TOTALSERVICEPROBLEMS) X(TOTALSERVICEPROBLEMSUNHANDLED)
// clang-format on

enum class M : std::uint8_t {
#define VEDETTE_MACRO_ENUM(name) name,
  VEDETTE_MACROS(VEDETTE_MACRO_ENUM)
#undef VEDETTE_MACRO_ENUM
};

inline constexpr std::array k_names{
#define VEDETTE_MACRO_NAME(name) std::string_view(#name),
    VEDETTE_MACROS(VEDETTE_MACRO_NAME)
#undef VEDETTE_MACRO_NAME
};
#undef VEDETTE_MACROS

inline constexpr std::size_t k_macro_count = k_names.size();

constexpr std::size_t index_of(M code) {
  return static_cast<std::size_t>(code);
}
constexpr bool in(M code, M first, M last) {
  return code >= first && code <= last;
}
constexpr bool is_host_code(M c) {
  return in(c, M::HOSTNAME, M::HOSTACKCOMMENT);
}
constexpr bool is_hostgroup_code(M c) {
  return in(c, M::HOSTGROUPNAME, M::HOSTGROUPNOTES);
}
constexpr bool is_service_code(M c) {
  return in(c, M::SERVICEDESC, M::SERVICEACKCOMMENT);
}
constexpr bool is_servicegroup_code(M c) {
  return in(c, M::SERVICEGROUPNAME, M::SERVICEGROUPNOTES);
}
constexpr bool is_contact_code(M c) {
  return in(c, M::CONTACTNAME, M::CONTACTGROUPNAMES);
}
constexpr bool is_contactgroup_code(M c) {
  return in(c, M::CONTACTGROUPNAME, M::CONTACTGROUPMEMBERS);
}
constexpr bool is_notification_code(M c) {
  return in(c, M::NOTIFICATIONTYPE, M::NOTIFICATIONCOMMENT);
}
constexpr bool is_datetime_code(M c) {
  return in(c, M::LONGDATETIME, M::NEXTVALIDTIME);
}
constexpr bool is_static_code(M c) {
  return in(c, M::ADMINEMAIL, M::EVENTSTARTTIME);
}
constexpr bool is_summary_code(M c) {
  return in(c, M::TOTALHOSTSUP, M::TOTALSERVICEPROBLEMSUNHANDLED);
}

// Naemon's list of macros that STRIP_ILLEGAL_MACRO_CHARS applies to (init_macros).
constexpr bool is_cleaned(M c) {
  switch (c) {
    case M::HOSTOUTPUT:
    case M::LONGHOSTOUTPUT:
    case M::HOSTPERFDATA:
    case M::HOSTACKAUTHOR:
    case M::HOSTACKCOMMENT:
    case M::SERVICEOUTPUT:
    case M::LONGSERVICEOUTPUT:
    case M::SERVICEPERFDATA:
    case M::SERVICEACKAUTHOR:
    case M::SERVICEACKCOMMENT:
    case M::HOSTCHECKCOMMAND:
    case M::SERVICECHECKCOMMAND:
    case M::HOSTNOTES:
    case M::SERVICENOTES:
    case M::HOSTGROUPNOTES:
    case M::SERVICEGROUPNOTES:
    // Not in Naemon's list, though whoever sends an acknowledgement, a downtime or a custom notification
    // writes them (docs/compatibility.md, "Macros").
    case M::NOTIFICATIONAUTHOR:
    case M::NOTIFICATIONCOMMENT:
      return true;
    default:
      return false;
  }
}

// Macros whose values come from outside the configuration: plugins (also through passive results) and
// whoever acknowledges, schedules a downtime or sends a custom notification. Their values never change how
// a command line is split or whether it runs under /bin/sh (docs/compatibility.md, "Macros"); neither do
// custom variables CHANGE_CUSTOM_*_VAR set (Resolver tells those apart by value, not by name).
constexpr bool is_outside(M c) {
  switch (c) {
    case M::HOSTOUTPUT:
    case M::LONGHOSTOUTPUT:
    case M::HOSTPERFDATA:
    case M::HOSTACKAUTHOR:
    case M::HOSTACKAUTHORNAME:
    case M::HOSTACKAUTHORALIAS:
    case M::HOSTACKCOMMENT:
    case M::SERVICEOUTPUT:
    case M::LONGSERVICEOUTPUT:
    case M::SERVICEPERFDATA:
    case M::SERVICEACKAUTHOR:
    case M::SERVICEACKAUTHORNAME:
    case M::SERVICEACKAUTHORALIAS:
    case M::SERVICEACKCOMMENT:
    case M::NOTIFICATIONAUTHOR:
    case M::NOTIFICATIONAUTHORNAME:
    case M::NOTIFICATIONAUTHORALIAS:
    case M::NOTIFICATIONCOMMENT:
      return true;
    default:
      return false;
  }
}

// The code of a standard macro's name ("HOSTSTATE"; no arguments), nullopt for any other name.
[[nodiscard]] std::optional<M> find_code(std::string_view name);

}  // namespace vedette::engine::macro_internal
