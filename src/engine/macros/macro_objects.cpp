// Host, service, group and contact macros. A host macro and its service twin that read the same field the
// same way share one code path (twin_macro, through k_twins); what differs between the two (names, state
// names, the last time in each state, downtime depth, groups) stays per kind.
#include "engine/macros/macro_resolver.hpp"

#include <array>
#include <type_traits>

namespace vedette::engine::macro_internal {
namespace {

struct Twins {
  M first, second;
  Field field;
};

// clang-format off
constexpr Twins k_twins[] = {
    {M::HOSTGROUPNAME,          M::SERVICEGROUPNAME,          Field::name},
    {M::HOSTGROUPALIAS,         M::SERVICEGROUPALIAS,         Field::alias},
    {M::HOSTGROUPACTIONURL,     M::SERVICEGROUPACTIONURL,     Field::action_url},
    {M::HOSTGROUPNOTESURL,      M::SERVICEGROUPNOTESURL,      Field::notes_url},
    {M::HOSTGROUPNOTES,         M::SERVICEGROUPNOTES,         Field::notes},
    {M::HOSTACTIONURL,          M::SERVICEACTIONURL,          Field::action_url},
    {M::HOSTNOTESURL,           M::SERVICENOTESURL,           Field::notes_url},
    {M::HOSTNOTES,              M::SERVICENOTES,              Field::notes},
    {M::HOSTCHECKCOMMAND,       M::SERVICECHECKCOMMAND,       Field::check_command},
    {M::MAXHOSTATTEMPTS,        M::MAXSERVICEATTEMPTS,        Field::max_attempts},
    {M::HOSTACKAUTHOR,          M::SERVICEACKAUTHOR,          Field::ack_author},
    {M::HOSTACKAUTHORNAME,      M::SERVICEACKAUTHORNAME,      Field::ack_author_name},
    {M::HOSTACKAUTHORALIAS,     M::SERVICEACKAUTHORALIAS,     Field::ack_author_alias},
    {M::HOSTACKCOMMENT,         M::SERVICEACKCOMMENT,         Field::ack_comment},
    {M::HOSTSTATE,              M::SERVICESTATE,              Field::state},
    {M::HOSTSTATEID,            M::SERVICESTATEID,            Field::state_id},
    {M::LASTHOSTSTATE,          M::LASTSERVICESTATE,          Field::last_state},
    {M::LASTHOSTSTATEID,        M::LASTSERVICESTATEID,        Field::last_state_id},
    {M::HOSTCHECKTYPE,          M::SERVICECHECKTYPE,          Field::check_type},
    {M::HOSTSTATETYPE,          M::SERVICESTATETYPE,          Field::state_type},
    {M::HOSTOUTPUT,             M::SERVICEOUTPUT,             Field::output},
    {M::LONGHOSTOUTPUT,         M::LONGSERVICEOUTPUT,         Field::long_output},
    {M::HOSTPERFDATA,           M::SERVICEPERFDATA,           Field::perfdata},
    {M::HOSTATTEMPT,            M::SERVICEATTEMPT,            Field::attempt},
    {M::HOSTDURATIONSEC,        M::SERVICEDURATIONSEC,        Field::duration_sec},
    {M::HOSTDURATION,           M::SERVICEDURATION,           Field::duration},
    {M::HOSTEXECUTIONTIME,      M::SERVICEEXECUTIONTIME,      Field::execution_time},
    {M::HOSTLATENCY,            M::SERVICELATENCY,            Field::latency},
    {M::LASTHOSTCHECK,          M::LASTSERVICECHECK,          Field::last_check},
    {M::LASTHOSTSTATECHANGE,    M::LASTSERVICESTATECHANGE,    Field::last_state_change},
    {M::HOSTPERCENTCHANGE,      M::SERVICEPERCENTCHANGE,      Field::percent_change},
    {M::HOSTNOTIFICATIONNUMBER, M::SERVICENOTIFICATIONNUMBER, Field::notification_number},
    {M::HOSTNOTIFICATIONID,     M::SERVICENOTIFICATIONID,     Field::notification_id},
    {M::HOSTEVENTID,            M::SERVICEEVENTID,            Field::event_id},
    {M::LASTHOSTEVENTID,        M::LASTSERVICEEVENTID,        Field::last_event_id},
    {M::HOSTPROBLEMID,          M::SERVICEPROBLEMID,          Field::problem_id},
    {M::LASTHOSTPROBLEMID,      M::LASTSERVICEPROBLEMID,      Field::last_problem_id},
    {M::HOSTPROBLEMSTART,       M::SERVICEPROBLEMSTART,       Field::problem_start},
    {M::HOSTPROBLEMEND,         M::SERVICEPROBLEMEND,         Field::problem_end},
    {M::HOSTPROBLEMDURATIONSEC, M::SERVICEPROBLEMDURATIONSEC, Field::problem_duration_sec},
    {M::HOSTPROBLEMDURATION,    M::SERVICEPROBLEMDURATION,    Field::problem_duration},
};
// clang-format on

// Indexed by code, so a macro finds its field without a search.
constexpr std::array<Field, k_macro_count> k_field_of = [] {
  std::array<Field, k_macro_count> fields{};
  for (const Twins& t : k_twins) fields[index_of(t.first)] = fields[index_of(t.second)] = t.field;
  return fields;
}();

constexpr Field field_of(M code) {
  return k_field_of[index_of(code)];
}

std::string_view or_default(std::string_view v, std::string_view fallback) {
  return v.empty() ? fallback : v;
}

// Naemon's NULL for no id (nothing inserted), else the id's text.
bool set_uuid(state::Uuid id, Value& v) {
  if (!id.is_set()) {
    v.set_null();
    return true;
  }
  v.buf.clear();
  state::append_uuid(id, v.buf);
  v.set_owned();
  return true;
}

// Naemon prepends each group to an object's list as memberships are registered, so its "first" group is
// the last one registered and its lists run backwards; the model keeps groups in definition (id) order.
template <class Id, class Groups>
bool join_group_names(const std::vector<Id>& ids, const Groups& groups, Value& v) {
  if (ids.empty()) {
    v.set_null();
    return true;
  }
  v.buf.clear();
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) {
    if (!v.buf.empty()) v.buf += ',';
    v.buf += groups[model::index(*it)].name;
  }
  v.set_owned();
  return true;
}

// $LASTHOSTUP$ … and $LASTSERVICEOK$ …: when the object was last in that state (null: another macro).
const Time* last_time_of(M code, const HostState& s) {
  switch (code) {
    case M::LASTHOSTUP:
      return &s.last_time_up;
    case M::LASTHOSTDOWN:
      return &s.last_time_down;
    case M::LASTHOSTUNREACHABLE:
      return &s.last_time_unreachable;
    default:
      return nullptr;
  }
}
const Time* last_time_of(M code, const ServiceState& s) {
  switch (code) {
    case M::LASTSERVICEOK:
      return &s.last_time_ok;
    case M::LASTSERVICEWARNING:
      return &s.last_time_warning;
    case M::LASTSERVICEUNKNOWN:
      return &s.last_time_unknown;
    case M::LASTSERVICECRITICAL:
      return &s.last_time_critical;
    default:
      return nullptr;
  }
}

}  // namespace

// $…PROBLEMDURATION$: until the problem ended, or until now while it lasts.
unsigned long Resolver::problem_duration(const state::EventIds& e) const {
  if (e.problem_end > 0) return static_cast<unsigned long>(e.problem_end - e.problem_start);
  if (e.problem_start > 0) return static_cast<unsigned long>(ctx_.now - e.problem_start);
  return 0;
}

// $…ACKAUTHOR$, $…ACKAUTHORNAME$, $…ACKAUTHORALIAS$, $…ACKCOMMENT$ (which: 0 to 3): set only while an
// acknowledgement is notified (Naemon computes them nowhere else).
void Resolver::ack_macro(int which, Value& v) const {
  const NotificationMacros* n = ctx_.notification;
  if (n == nullptr || !n->acknowledgement) {
    v.set_null();
    return;
  }
  const std::string_view values[] = {n->author, n->author_name, n->author_alias, n->comment};
  v.set(values[which]);
}

// The notes and URLs of hosts, services and their groups.
template <class Object>
bool Resolver::link_macro(Field f, const Object& object, Value& v) {
  switch (f) {
    case Field::action_url:
      expand_nested(object.action_url, k_url_encode, v);
      return true;
    case Field::notes_url:
      expand_nested(object.notes_url, k_url_encode, v);
      return true;
    case Field::notes:
      expand_nested(object.notes, k_macro_plain, v);
      return true;
    default:
      return false;
  }
}

// The macros of a host or service that host_macro / service_macro left: the twins, and the last time in
// each state. `s` null: only what needs no state is known.
template <class State>
bool Resolver::twin_macro(M code, const model::Checkable& object, const State* s, Value& v) {
  const Field f = field_of(code);
  switch (f) {
    case Field::check_command:
      v.set(object.check_command.raw);
      return true;
    case Field::max_attempts:  // CHANGE_MAX_*_CHECK_ATTEMPTS's value when a command changed it
      v.set_int(s != nullptr ? state::max_check_attempts_of(object, *s) : object.max_check_attempts);
      return true;
    case Field::ack_author:
    case Field::ack_author_name:
    case Field::ack_author_alias:
    case Field::ack_comment:
      ack_macro(static_cast<int>(f) - static_cast<int>(Field::ack_author), v);
      return true;
    default:
      if (link_macro(f, object, v)) return true;
      break;
  }

  if (!s) return false;
  if (const Time* t = last_time_of(code, *s)) {
    v.set_time(*t);
    return true;
  }
  const auto state_name = [](int state) {
    return std::is_same_v<State, HostState> ? host_state_name(state) : service_state_name(state);
  };
  switch (f) {
    case Field::state:
      v.set(state_name(s->current_state));
      return true;
    case Field::state_id:
      v.set_int(s->current_state);
      return true;
    case Field::last_state:
      v.set(state_name(s->last_state));
      return true;
    case Field::last_state_id:
      v.set_int(s->last_state);
      return true;
    case Field::check_type:
      v.set(s->check_type == CheckType::passive ? "PASSIVE" : "ACTIVE");
      return true;
    case Field::state_type:
      v.set(state_type_name(s->state_type));
      return true;
    case Field::output:
      v.set(s->plugin_output);
      return true;
    case Field::long_output:
      v.set(s->long_plugin_output);
      return true;
    case Field::perfdata:
      v.set(s->perf_data);
      return true;
    case Field::attempt:
      v.set_int(s->current_attempt);
      return true;
    case Field::duration_sec:
      v.set_uint(static_cast<unsigned long>(ctx_.now - s->last_state_change));
      return true;
    case Field::duration:
      v.set_duration(static_cast<unsigned long>(ctx_.now - s->last_state_change));
      return true;
    case Field::execution_time:
      v.set_fixed(s->execution_time, 3);
      return true;
    case Field::latency:
      v.set_fixed(s->latency, 3);
      return true;
    case Field::last_check:
      v.set_time(s->last_check);
      return true;
    case Field::last_state_change:
      v.set_time(s->last_state_change);
      return true;
    case Field::percent_change:
      v.set_fixed(s->flap.percent_state_change, 2);
      return true;
    case Field::notification_number:
      v.set_int(s->notification.current_notification_number);
      return true;
    case Field::notification_id:
      return set_uuid(s->notification.current_notification_id, v);
    case Field::event_id:
      v.set_uint(s->events.current_event_id);
      return true;
    case Field::last_event_id:
      v.set_uint(s->events.last_event_id);
      return true;
    case Field::problem_id:
      return set_uuid(s->events.current_problem_id, v);
    case Field::last_problem_id:
      return set_uuid(s->events.last_problem_id, v);
    case Field::problem_start:
      v.set_time(s->events.problem_start);
      return true;
    case Field::problem_end:
      v.set_time(s->events.problem_end);
      return true;
    case Field::problem_duration_sec:
      v.set_uint(problem_duration(s->events));
      return true;
    case Field::problem_duration:
      v.set_duration(problem_duration(s->events));
      return true;
    default:
      return false;
  }
}

// $HOSTDOWNTIME$ / $SERVICEDOWNTIME$: the notifier's depth for the object it notifies (it sends
// DOWNTIMESTART/END around the change), else the downtime book's.
template <class Id>
void Resolver::downtime_macro(Id id, Id notified, int NotificationMacros::*notified_depth, Value& v) const {
  const NotificationMacros* n = ctx_.notification;
  if (n != nullptr && n->*notified_depth >= 0 && id == notified) {
    v.set_int(n->*notified_depth);
    return;
  }
  v.set_int(ctx_.downtime_depths(id));
}

bool Resolver::host_service_totals(M code, const model::Host& h, Value& v) const {
  std::array<int, 4> by_state{};
  for (model::ServiceId s : h.services) {
    const ServiceState* st = service_state(s);
    if (!st) return false;
    if (st->current_state >= 0 && st->current_state <= 3)
      ++by_state[static_cast<std::size_t>(st->current_state)];
  }
  switch (code) {
    case M::TOTALHOSTSERVICES:
      v.set_int(static_cast<long long>(h.services.size()));
      break;
    case M::TOTALHOSTSERVICESOK:
      v.set_int(by_state[k_state_ok]);
      break;
    case M::TOTALHOSTSERVICESWARNING:
      v.set_int(by_state[k_state_warning]);
      break;
    case M::TOTALHOSTSERVICESUNKNOWN:
      v.set_int(by_state[k_state_unknown]);
      break;
    default:
      v.set_int(by_state[k_state_critical]);
      break;
  }
  return true;
}

bool Resolver::host_macro(M code, model::HostId id, Value& v) {
  const model::Host& h = m_.host(id);
  switch (code) {
    case M::HOSTNAME:
      v.set(h.name);
      return true;
    case M::HOSTDISPLAYNAME:
      v.set(or_default(h.display_name, h.name));
      return true;
    case M::HOSTALIAS:
      v.set(or_default(h.alias, h.name));
      return true;
    case M::HOSTADDRESS:
      v.set(or_default(h.address, h.name));
      return true;
    case M::HOSTGROUPNAMES:
      return join_group_names(h.hostgroups, m_.hostgroups, v);
    case M::HOSTDOWNTIME:
      downtime_macro(id, ctx_.host, &NotificationMacros::host_downtime_depth, v);
      return true;
    case M::TOTALHOSTSERVICES:
    case M::TOTALHOSTSERVICESOK:
    case M::TOTALHOSTSERVICESWARNING:
    case M::TOTALHOSTSERVICESUNKNOWN:
    case M::TOTALHOSTSERVICESCRITICAL:
      return host_service_totals(code, h, v);
    default:
      break;
  }
  return twin_macro(code, h, host_state(id), v);
}

bool Resolver::service_macro(M code, model::ServiceId id, Value& v) {
  const model::Service& svc = m_.service(id);
  switch (code) {
    case M::SERVICEDESC:
      v.set(svc.description);
      return true;
    case M::SERVICEDISPLAYNAME:
      v.set(or_default(svc.display_name, svc.description));
      return true;
    case M::SERVICEISVOLATILE:
      v.set_int(svc.is_volatile ? 1 : 0);
      return true;
    case M::SERVICEGROUPNAMES:
      return join_group_names(svc.servicegroups, m_.servicegroups, v);
    case M::SERVICEDOWNTIME:
      downtime_macro(id, ctx_.service, &NotificationMacros::downtime_depth, v);
      return true;
    default:
      break;
  }
  return twin_macro(code, svc, service_state(id), v);
}

template <class Group>
bool Resolver::group_macro(Field f, const Group& g, Value& v) {
  switch (f) {
    case Field::name:
      v.set(g.name);
      return true;
    case Field::alias:
      v.set(g.alias);
      return true;
    default:
      return link_macro(f, g, v);
  }
}

bool Resolver::hostgroup_macro(M code, model::HostgroupId id, Value& v) {
  const model::Hostgroup& g = m_.hostgroups[model::index(id)];
  if (code != M::HOSTGROUPMEMBERS) return group_macro(field_of(code), g, v);
  v.buf.clear();
  for (model::HostId h : hosts_by_name(g)) {
    if (!v.buf.empty()) v.buf += ',';
    v.buf += m_.host(h).name;
  }
  v.set_owned();
  return true;
}

bool Resolver::servicegroup_macro(M code, model::ServicegroupId id, Value& v) {
  const model::Servicegroup& g = m_.servicegroups[model::index(id)];
  if (code != M::SERVICEGROUPMEMBERS) return group_macro(field_of(code), g, v);
  v.buf.clear();
  for (model::ServiceId s : services_by_name(g)) {
    if (!v.buf.empty()) v.buf += ',';
    v.buf += m_.service(s).host_name;
    v.buf += ',';
    v.buf += m_.service(s).description;
  }
  v.set_owned();
  return true;
}

bool Resolver::contact_macro(M code, model::ContactId id, Value& v) {
  const model::Contact& c = m_.contacts[model::index(id)];
  switch (code) {
    case M::CONTACTNAME:
      v.set(c.name);
      return true;
    case M::CONTACTALIAS:
      v.set(or_default(c.alias, c.name));
      return true;
    case M::CONTACTEMAIL:
      v.set(c.email);
      return true;
    case M::CONTACTPAGER:
      v.set(c.pager);
      return true;
    case M::CONTACTGROUPNAMES:
      return join_group_names(c.contactgroups, m_.contactgroups, v);
    default:
      return false;
  }
}

bool Resolver::contactgroup_macro(M code, model::ContactgroupId id, Value& v) {
  const model::Contactgroup& g = m_.contactgroups[model::index(id)];
  switch (code) {
    case M::CONTACTGROUPNAME:
      v.set(g.name);
      return true;
    case M::CONTACTGROUPALIAS:
      v.set(g.alias);
      return true;
    case M::CONTACTGROUPMEMBERS:
      // Naemon repeats the first member ("a,a,b"); Vedette lists each once (docs/compatibility.md).
      v.buf.clear();
      for (model::ContactId c : g.members) {
        if (!v.buf.empty()) v.buf += ',';
        v.buf += m_.contacts[model::index(c)].name;
      }
      v.set_owned();
      return true;
    default:
      return false;
  }
}

}  // namespace vedette::engine::macro_internal
