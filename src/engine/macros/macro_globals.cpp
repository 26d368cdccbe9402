// Macros that read no host, service or contact of their own: the notification's, the date and time, the
// main configuration's, and the summary counts over all hosts and services.
#include "engine/macros/macro_resolver.hpp"
#include "timeperiod/evaluator.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace vedette::engine::macro_internal {

void Resolver::notification_macro(M code, Value& v) const {
  const NotificationMacros* n = ctx_.notification;
  if (n == nullptr) {
    v.set_null();
    return;
  }
  switch (code) {
    case M::NOTIFICATIONTYPE:
      v.set(n->type);
      break;
    case M::NOTIFICATIONNUMBER:
      v.set_int(n->number);
      break;
    case M::NOTIFICATIONRECIPIENTS:
      v.set(n->recipients);
      break;
    case M::NOTIFICATIONISESCALATED:
      v.set_int(n->escalated ? 1 : 0);
      break;
    case M::NOTIFICATIONAUTHOR:
      v.set(n->author);
      break;
    case M::NOTIFICATIONAUTHORNAME:
      v.set(n->author_name);
      break;
    case M::NOTIFICATIONAUTHORALIAS:
      v.set(n->author_alias);
      break;
    default:  // NOTIFICATIONCOMMENT
      v.set(n->comment);
      break;
  }
}

bool Resolver::datetime_macro(M code, Arg a1, Arg a2, Value& v) {
  if (code == M::ISVALIDTIME || code == M::NEXTVALIDTIME) {
    const auto period = find_in(m_.timeperiod_by_name, a1.text);
    if (!period || !ctx_.timeperiods) return false;
    std::time_t test_time = ctx_.now;
    if (a2.present) {
      const std::string digits(a2.text);
      test_time = static_cast<std::time_t>(std::strtoul(digits.c_str(), nullptr, 0));
    }
    const auto index = static_cast<timeperiod::PeriodIndex>(model::index(*period));
    const bool valid = ctx_.timeperiods->is_time_valid(index, test_time);
    if (code == M::ISVALIDTIME) {
      v.set_int(valid ? 1 : 0);
      return true;
    }
    std::time_t next = ctx_.timeperiods->next_valid_time(index, test_time, ctx_.now);
    if (next == test_time && !valid) next = 0;
    v.set_uint(static_cast<unsigned long>(next));
    return true;
  }
  if (code == M::TIMET) {
    v.set_uint(static_cast<unsigned long>(ctx_.now));
    return true;
  }

  static constexpr std::array<const char*, 7> k_weekdays{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr std::array<const char*, 12> k_months{"Jan", "Feb", "Mar",  "Apr", "May", "Jun",
                                                        "Jul", "Aug", "Sept", "Oct", "Nov", "Dec"};
  const std::time_t t = ctx_.now;
  std::tm tm{};
  ::localtime_r(&t, &tm);
  const int year = tm.tm_year + 1900, month = tm.tm_mon + 1, day = tm.tm_mday;
  const config::DateFormat format = ctx_.main.date_format;
  const bool iso = format == config::DateFormat::iso8601 || format == config::DateFormat::strict_iso8601;
  char tmp[96];
  int n = 0;
  switch (code) {
    case M::LONGDATETIME:
      n = std::snprintf(tmp, sizeof tmp, "%s %s %d %02d:%02d:%02d %s %d",
                        k_weekdays[static_cast<std::size_t>(tm.tm_wday)],
                        k_months[static_cast<std::size_t>(tm.tm_mon)], day, tm.tm_hour, tm.tm_min, tm.tm_sec,
                        tm.tm_zone ? tm.tm_zone : "", year);
      break;
    case M::SHORTDATETIME:
      if (format == config::DateFormat::euro) {
        n = std::snprintf(tmp, sizeof tmp, "%02d-%02d-%04d %02d:%02d:%02d", day, month, year, tm.tm_hour,
                          tm.tm_min, tm.tm_sec);
      } else if (iso) {
        n = std::snprintf(tmp, sizeof tmp, "%04d-%02d-%02d%c%02d:%02d:%02d", year, month, day,
                          format == config::DateFormat::strict_iso8601 ? 'T' : ' ', tm.tm_hour, tm.tm_min,
                          tm.tm_sec);
      } else {
        n = std::snprintf(tmp, sizeof tmp, "%02d-%02d-%04d %02d:%02d:%02d", month, day, year, tm.tm_hour,
                          tm.tm_min, tm.tm_sec);
      }
      break;
    case M::DATE:
      if (format == config::DateFormat::euro) {
        n = std::snprintf(tmp, sizeof tmp, "%02d-%02d-%04d", day, month, year);
      } else if (iso) {
        n = std::snprintf(tmp, sizeof tmp, "%04d-%02d-%02d", year, month, day);
      } else {
        n = std::snprintf(tmp, sizeof tmp, "%02d-%02d-%04d", month, day, year);
      }
      break;
    default:  // TIME
      n = std::snprintf(tmp, sizeof tmp, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
      break;
  }
  v.buf.assign(tmp, static_cast<std::size_t>(std::clamp(n, 0, static_cast<int>(sizeof tmp) - 1)));
  v.set_owned();
  return true;
}

bool Resolver::static_macro(M code, Value& v) {
  const config::MainConfig& c = ctx_.main;
  switch (code) {
    case M::ADMINEMAIL:
      v.set(c.admin_email);
      return true;
    case M::ADMINPAGER:
      v.set(c.admin_pager);
      return true;
    case M::MAINCONFIGFILE:
      v.set(c.main_config_file);
      return true;
    case M::STATUSDATAFILE:
      v.set(c.status_file);
      return true;
    case M::RETENTIONDATAFILE:
      v.set(c.state_retention_file);
      return true;
    case M::OBJECTCACHEFILE:
      v.set(c.object_cache_file);
      return true;
    case M::TEMPFILE:
      v.set(c.temp_file);
      return true;
    case M::LOGFILE:
      v.set(c.log_file);
      return true;
    case M::RESOURCEFILE:  // Naemon keeps the last resource_file it read
      v.set(c.resource_files.empty() ? std::string_view{} : std::string_view(c.resource_files.back()));
      return true;
    case M::COMMANDFILE:
      v.set(c.command_file);
      return true;
    case M::HOSTPERFDATAFILE:
      v.set(c.host_perfdata_file);
      return true;
    case M::SERVICEPERFDATAFILE:
      v.set(c.service_perfdata_file);
      return true;
    case M::TEMPPATH:
      v.set(c.temp_path);
      return true;
    case M::PROCESSSTARTTIME:
    case M::EVENTSTARTTIME:
      v.set_time(ctx_.program_start);
      return true;
    default:
      return false;
  }
}

// Whether Naemon's $TOTAL…$ macros count the object for contact `c` (while notifying c).
bool Resolver::is_contact_for(model::ContactId c, const model::Checkable& object) const {
  if (std::find(object.contacts.begin(), object.contacts.end(), c) != object.contacts.end()) return true;
  const auto& groups = m_.contacts[model::index(c)].contactgroups;
  return std::any_of(
      object.contact_groups.begin(), object.contact_groups.end(),
      [&](model::ContactgroupId g) { return std::find(groups.begin(), groups.end(), g) != groups.end(); });
}

bool Resolver::summary_macro(M code, Value& v) {
  if (!ctx_.all_hosts || !ctx_.all_services) return false;
  const bool filter = model::is_set(ctx_.contact);
  // As Naemon: a problem is handled when it is in a downtime, acknowledged, or its active checks are
  // disabled at run time; a service's also when its host is DOWN or UNREACHABLE.
  const auto handled = [&](const auto& id, const auto& state) {
    return ctx_.downtime_depths(id) > 0 || state.problem_has_been_acknowledged ||
           !state.enabled(state::Flag::active_checks);
  };
  int up = 0, down = 0, unreachable = 0, down_unhandled = 0;
  for (std::uint32_t i = 0; i < m_.hosts.size() && i < ctx_.all_hosts->size(); ++i) {
    const model::Host& h = m_.hosts[i];
    if (filter && !is_contact_for(ctx_.contact, h)) continue;
    const HostState& s = (*ctx_.all_hosts)[i];
    if (s.current_state == k_host_up && s.has_been_checked) {
      ++up;
    } else if (s.current_state == k_host_down || s.current_state == k_host_unreachable) {
      // Naemon counts unhandled UNREACHABLE hosts as unhandled DOWN ones; TOTALHOSTSUNREACHABLEUNHANDLED
      // stays 0. Kept for compatibility.
      if (!handled(model::HostId{i}, s)) ++down_unhandled;
      (s.current_state == k_host_down ? down : unreachable)++;
    }
  }
  std::array<int, 4> svc{}, svc_unhandled{};
  for (std::uint32_t i = 0; i < m_.services.size() && i < ctx_.all_services->size(); ++i) {
    const model::Service& sv = m_.services[i];
    if (filter && !is_contact_for(ctx_.contact, sv)) continue;
    const ServiceState& s = (*ctx_.all_services)[i];
    if (s.current_state == k_state_ok) {
      if (s.has_been_checked) ++svc[k_state_ok];
      continue;
    }
    if (s.current_state < 1 || s.current_state > 3) continue;
    const auto st = static_cast<std::size_t>(s.current_state);
    bool problem = !handled(model::ServiceId{i}, s);
    if (model::is_set(sv.host) && model::index(sv.host) < ctx_.all_hosts->size()) {
      const int hs = (*ctx_.all_hosts)[model::index(sv.host)].current_state;
      if (hs == k_host_down || hs == k_host_unreachable) problem = false;
    }
    if (problem) ++svc_unhandled[st];
    ++svc[st];
  }
  long long value = 0;
  switch (code) {
    case M::TOTALHOSTSUP:
      value = up;
      break;
    case M::TOTALHOSTSDOWN:
      value = down;
      break;
    case M::TOTALHOSTSUNREACHABLE:
      value = unreachable;
      break;
    case M::TOTALHOSTSDOWNUNHANDLED:
      value = down_unhandled;
      break;
    case M::TOTALHOSTSUNREACHABLEUNHANDLED:
      value = 0;
      break;
    case M::TOTALHOSTPROBLEMS:
      value = down + unreachable;
      break;
    case M::TOTALHOSTPROBLEMSUNHANDLED:
      value = down_unhandled;
      break;
    case M::TOTALSERVICESOK:
      value = svc[k_state_ok];
      break;
    case M::TOTALSERVICESWARNING:
      value = svc[k_state_warning];
      break;
    case M::TOTALSERVICESCRITICAL:
      value = svc[k_state_critical];
      break;
    case M::TOTALSERVICESUNKNOWN:
      value = svc[k_state_unknown];
      break;
    case M::TOTALSERVICESWARNINGUNHANDLED:
      value = svc_unhandled[k_state_warning];
      break;
    case M::TOTALSERVICESCRITICALUNHANDLED:
      value = svc_unhandled[k_state_critical];
      break;
    case M::TOTALSERVICESUNKNOWNUNHANDLED:
      value = svc_unhandled[k_state_unknown];
      break;
    case M::TOTALSERVICEPROBLEMS:
      value = svc[1] + svc[2] + svc[3];
      break;
    default:  // TOTALSERVICEPROBLEMSUNHANDLED
      value = svc_unhandled[1] + svc_unhandled[2] + svc_unhandled[3];
      break;
  }
  v.set_int(value);
  return true;
}

}  // namespace vedette::engine::macro_internal
