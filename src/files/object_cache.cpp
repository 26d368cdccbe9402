#include "files/object_cache.hpp"

#include "files/atomic_file.hpp"
#include "model/model.hpp"
#include "model/name_order.hpp"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace vedette::files {
namespace {

using model::OptionSet;

// Text is handed to write() in chunks of about this size, so a 100k-service file (~100 MB) never sits in
// memory whole.
constexpr std::size_t k_chunk = std::size_t{1} << 20;

// One letter per option bit, in the order Naemon prints them after the "ok" letter.
struct OptionLetter {
  OptionSet bit;
  char letter;
};
constexpr std::array<OptionLetter, 5> k_host_letters{{{model::k_opt_down, 'd'},
                                                      {model::k_opt_unreachable, 'u'},
                                                      {model::k_opt_flapping, 'f'},
                                                      {model::k_opt_downtime, 's'},
                                                      {model::k_opt_pending, 'p'}}};
constexpr std::array<OptionLetter, 6> k_service_letters{{{model::k_opt_warning, 'w'},
                                                         {model::k_opt_unknown, 'u'},
                                                         {model::k_opt_critical, 'c'},
                                                         {model::k_opt_flapping, 'f'},
                                                         {model::k_opt_downtime, 's'},
                                                         {model::k_opt_pending, 'p'}}};

constexpr std::array<std::string_view, 7> k_weekdays{"sunday",   "monday", "tuesday", "wednesday",
                                                     "thursday", "friday", "saturday"};
constexpr std::array<std::string_view, 12> k_months{"january",   "february", "march",    "april",
                                                    "may",       "june",     "july",     "august",
                                                    "september", "october",  "november", "december"};

// Appends objects.cache text. Naemon writes with fprintf (%s, %d, %u, %f); these give the same bytes.
// Values are written as they are: configuration values cannot hold a newline.
class Out {
 public:
  explicit Out(std::string& s) : s_(s) {}

  void raw(std::string_view text) { s_.append(text); }
  void begin(std::string_view type) {
    s_.append("define ");
    s_.append(type);
    s_.append(" {\n");
  }
  void end() { s_.append("\t}\n\n"); }

  // "\t<key>\t<value>\n"
  void str(std::string_view key, std::string_view value) {
    field(key);
    s_.append(value);
    s_.push_back('\n');
  }
  // Only when set, as Naemon skips NULL strings.
  void opt(std::string_view key, std::string_view value) {
    if (!value.empty()) str(key, value);
  }
  void num(std::string_view key, long long value) {
    field(key);
    const fmt::format_int f(value);
    s_.append(f.data(), f.size());
    s_.push_back('\n');
  }
  void flag(std::string_view key, bool value) { num(key, value ? 1 : 0); }
  // %f
  void fixed(std::string_view key, double value) {
    field(key);
    fmt::format_to(std::back_inserter(s_), FMT_COMPILE("{:.6f}\n"), value);
  }
  // Naemon's opts2str(): "n" for none, "a" for all, else the letters joined by ',' with the ok/recovery
  // letter first. Bits Naemon has no letter for are not written.
  template <std::size_t N>
  void options(std::string_view key, OptionSet bits, const std::array<OptionLetter, N>& letters, char ok) {
    field(key);
    if (bits == model::k_opt_all) {
      s_.append("a\n");
      return;
    }
    bool first = true;
    auto letter = [&](char c) {
      if (!first) s_.push_back(',');
      s_.push_back(c);
      first = false;
    };
    if ((bits & model::k_opt_ok) != 0) letter(ok);
    for (const OptionLetter& l : letters)
      if ((bits & l.bit) != 0) letter(l.letter);
    if (first) s_.push_back('n');
    s_.push_back('\n');
  }
  // "\t<key>\t" then items joined by ','; nothing when there are none.
  template <typename List, typename Name>
  void list(std::string_view key, const List& items, Name&& name) {
    if (items.empty()) return;
    field(key);
    bool first = true;
    for (const auto& item : items) {
      if (!first) s_.push_back(',');
      s_.append(name(item));
      first = false;
    }
    s_.push_back('\n');
  }
  // Naemon's lists of contacts, contact groups, notification commands and exclusions are built by
  // prepending each name of the directive: they come out last-named first.
  template <typename List, typename Name>
  void reversed_list(std::string_view key, const List& items, Name&& name) {
    if (items.empty()) return;
    field(key);
    for (auto it = items.rbegin(); it != items.rend(); ++it) {
      if (it != items.rbegin()) s_.push_back(',');
      s_.append(name(*it));
    }
    s_.push_back('\n');
  }
  void custom(const std::vector<model::CustomVariable>& vars) {
    for (const model::CustomVariable& v : vars) {
      s_.append("\t_");
      s_.append(v.name);
      s_.push_back('\t');
      s_.append(v.is_null ? std::string_view("null") : v.value);
      s_.push_back('\n');
    }
  }
  // A time of day as Naemon's timerange2str(): "%02hd:%02hd", where 24:00 stays 24:00.
  void time_of_day(std::uint32_t seconds) {
    fmt::format_to(std::back_inserter(s_), FMT_COMPILE("{:02}:{:02}"), seconds / 3600, (seconds / 60) % 60);
  }
  void ranges(const std::vector<timeperiod::TimeRange>& ranges) {
    for (std::size_t i = 0; i < ranges.size(); ++i) {
      if (i != 0) s_.push_back(',');
      time_of_day(ranges[i].start);
      s_.push_back('-');
      time_of_day(ranges[i].end);
    }
    s_.push_back('\n');
  }
  // `f` is an FMT_COMPILE format.
  template <typename Format, typename... Args>
  void format(const Format& f, const Args&... args) {
    fmt::format_to(std::back_inserter(s_), f, args...);
  }

 private:
  void field(std::string_view key) {
    s_.push_back('\t');
    s_.append(key);
    s_.push_back('\t');
  }

  std::string& s_;
};

class Writer {
 public:
  Writer(const model::Model& m, Out& o, ObjectCacheFormat format) : m_(m), o_(o), format_(format) {}

  std::string_view period(model::TimeperiodId id) const {
    return model::is_set(id) ? m_.timeperiods[model::index(id)].name : std::string_view{};
  }
  std::string_view contact(model::ContactId id) const { return m_.contacts[model::index(id)].name; }
  std::string_view contactgroup(model::ContactgroupId id) const {
    return m_.contactgroups[model::index(id)].name;
  }

  void header(std::int64_t created) {
    const std::time_t t = static_cast<std::time_t>(created);
    std::tm tm{};
    char when[64] = "\n";
    if (::localtime_r(&t, &tm) != nullptr) std::strftime(when, sizeof when, "%a %b %e %H:%M:%S %Y\n", &tm);
    o_.raw(
        "########################################\n"
        "#       NAGIOS OBJECT CACHE FILE\n"
        "#\n"
        "# THIS FILE IS AUTOMATICALLY GENERATED\n"
        "# BY NAGIOS.  DO NOT MODIFY THIS FILE!\n"
        "#\n"
        "# Created: ");
    o_.raw(when);
    o_.raw("########################################\n\n");
  }

  void timeperiod(const model::Timeperiod& t) {
    o_.begin("timeperiod");
    o_.str("timeperiod_name", t.name);
    o_.str("alias", t.alias);
    o_.reversed_list("exclude", t.exclusions, [&](model::TimeperiodId id) { return period(id); });
    for (const auto& of_type : t.rules.exceptions)
      for (const timeperiod::DateRange& r : of_type) date_range(r);
    for (std::size_t day = 0; day < t.rules.weekdays.size(); ++day) {
      if (t.rules.weekdays[day].empty()) continue;
      o_.format(FMT_COMPILE("\t{}\t"), k_weekdays[day]);
      o_.ranges(t.rules.weekdays[day]);
    }
    o_.end();
  }

  // One exception line as Naemon prints it back: the end of a range only when it differs from the start,
  // and "/ N" for a skip interval above 1 (for the non-calendar forms only with a range).
  void date_range(const timeperiod::DateRange& r) {
    if (r.ranges.empty()) return;
    using Type = timeperiod::DateRangeType;
    auto skip = [&] {
      if (r.skip_interval > 1) o_.format(FMT_COMPILE(" / {}"), r.skip_interval);
    };
    switch (r.type) {
      case Type::calendar_date:
        o_.format(FMT_COMPILE("\t{}-{:02}-{:02}"), r.syear, r.smon + 1, r.smday);
        if (r.smday != r.emday || r.smon != r.emon || r.syear != r.eyear)
          o_.format(FMT_COMPILE(" - {}-{:02}-{:02}"), r.eyear, r.emon + 1, r.emday);
        skip();
        break;
      case Type::month_date:
        o_.format(FMT_COMPILE("\t{} {}"), month(r.smon), r.smday);
        if (r.smon != r.emon || r.smday != r.emday) {
          o_.format(FMT_COMPILE(" - {} {}"), month(r.emon), r.emday);
          skip();
        }
        break;
      case Type::month_day:
        o_.format(FMT_COMPILE("\tday {}"), r.smday);
        if (r.smday != r.emday) {
          o_.format(FMT_COMPILE(" - {}"), r.emday);
          skip();
        }
        break;
      case Type::month_week_day:
        o_.format(FMT_COMPILE("\t{} {} {}"), weekday(r.swday), r.swday_offset, month(r.smon));
        if (r.smon != r.emon || r.swday != r.ewday || r.swday_offset != r.ewday_offset) {
          o_.format(FMT_COMPILE(" - {} {} {}"), weekday(r.ewday), r.ewday_offset, month(r.emon));
          skip();
        }
        break;
      case Type::week_day:
        o_.format(FMT_COMPILE("\t{} {}"), weekday(r.swday), r.swday_offset);
        if (r.swday != r.ewday || r.swday_offset != r.ewday_offset) {
          o_.format(FMT_COMPILE(" - {} {}"), weekday(r.ewday), r.ewday_offset);
          skip();
        }
        break;
    }
    o_.raw("\t");
    o_.ranges(r.ranges);
  }

  static std::string_view month(int m) {
    return m >= 0 && m < 12 ? k_months[static_cast<std::size_t>(m)] : std::string_view{};
  }
  static std::string_view weekday(int d) {
    return d >= 0 && d < 7 ? k_weekdays[static_cast<std::size_t>(d)] : std::string_view{};
  }

  void command(const model::Command& c) {
    o_.begin("command");
    o_.str("command_name", c.name);
    o_.str("command_line", c.compiled.line);
    o_.end();
  }

  void contactgroup(const model::Contactgroup& g) {
    o_.begin("contactgroup");
    o_.str("contactgroup_name", g.name);
    o_.str("alias", g.alias);
    o_.list("members", g.listed_members, [&](model::ContactId id) { return contact(id); });
    o_.end();
  }

  void hostgroup(const model::Hostgroup& g) {
    o_.begin("hostgroup");
    o_.str("hostgroup_name", g.name);
    o_.str("alias", g.alias);
    // Naemon keeps host group members in a tree sorted by name.
    host_names_.clear();
    for (model::HostId h : g.members) host_names_.push_back(m_.host(h).name);
    std::sort(host_names_.begin(), host_names_.end());
    o_.list("members", host_names_, [](std::string_view name) { return name; });
    group_notes(g);
    o_.end();
  }

  void servicegroup(const model::Servicegroup& g) {
    o_.begin("servicegroup");
    o_.str("servicegroup_name", g.name);
    o_.str("alias", g.alias);
    if (!g.listed_members.empty()) {
      o_.raw("\tmembers\t");
      for (std::size_t i = 0; i < g.listed_members.size(); ++i) {
        const model::Service& s = m_.service(g.listed_members[i]);
        if (i != 0) o_.raw(",");
        o_.raw(s.host_name);
        o_.raw(",");
        o_.raw(s.description);
      }
      o_.raw("\n");
    }
    group_notes(g);
    o_.end();
  }

  template <typename Group>
  void group_notes(const Group& g) {
    o_.opt("notes", g.notes);
    o_.opt("notes_url", g.notes_url);
    o_.opt("action_url", g.action_url);
  }

  void contact(const model::Contact& c) {
    o_.begin("contact");
    o_.str("contact_name", c.name);
    o_.str("alias", c.alias);
    o_.opt("service_notification_period", period(c.service_notification_period));
    o_.opt("host_notification_period", period(c.host_notification_period));
    o_.options("service_notification_options", c.service_notification_options, k_service_letters, 'r');
    o_.options("host_notification_options", c.host_notification_options, k_host_letters, 'r');
    auto raw = [](const model::CommandCall& call) { return call.raw; };
    o_.reversed_list("service_notification_commands", c.service_notification_commands, raw);
    o_.reversed_list("host_notification_commands", c.host_notification_commands, raw);
    o_.opt("email", c.email);
    o_.opt("pager", c.pager);
    for (std::size_t i = 0; i < c.addresses.size(); ++i)
      if (!c.addresses[i].empty()) {
        o_.format(FMT_COMPILE("\taddress{}\t"), i + 1);
        o_.raw(c.addresses[i]);
        o_.raw("\n");
      }
    o_.num("minimum_value", static_cast<unsigned>(c.minimum_value));
    o_.flag("host_notifications_enabled", c.host_notifications_enabled);
    o_.flag("service_notifications_enabled", c.service_notifications_enabled);
    o_.flag("can_submit_commands", c.can_submit_commands);
    o_.flag("retain_status_information", c.retain_status_information);
    o_.flag("retain_nonstatus_information", c.retain_nonstatus_information);
    o_.custom(c.custom_variables);
    o_.end();
  }

  // From check_period to contact_groups/notification_period: what hosts and services share up front.
  void checkable_head(const model::Checkable& x) {
    o_.opt("check_period", period(x.check_period));
    o_.opt("check_command", x.check_command.raw);
    o_.opt("event_handler", x.event_handler.raw);
    o_.reversed_list("contacts", x.contacts, [&](model::ContactId id) { return contact(id); });
    o_.reversed_list("contact_groups", x.contact_groups,
                     [&](model::ContactgroupId id) { return contactgroup(id); });
    o_.opt("notification_period", period(x.notification_period));
  }

  void host(const model::Host& h) {
    o_.begin("host");
    o_.str("host_name", h.name);
    if (h.display_name_set) o_.str("display_name", h.display_name);
    o_.str("alias", h.alias);
    o_.str("address", h.address);
    // Naemon keeps a host's parents in a tree sorted by name.
    host_names_.clear();
    for (model::HostId p : h.parents) host_names_.push_back(m_.host(p).name);
    std::sort(host_names_.begin(), host_names_.end());
    o_.list("parents", host_names_, [](std::string_view name) { return name; });
    checkable_head(h);
    // Naemon always writes 'o' here (it never stores the configured value); Vedette writes the
    // configured state (docs/compatibility.md).
    static constexpr std::array<std::string_view, 3> k_states{"o", "d", "u"};
    o_.str("initial_state", h.initial_state >= 0 && h.initial_state < 3
                                ? k_states[static_cast<std::size_t>(h.initial_state)]
                                : std::string_view("o"));
    checkable_numbers(h);
    checkable_flags(h, k_host_letters);
    o_.opt("icon_image", h.icon_image);
    o_.opt("icon_image_alt", h.icon_image_alt);
    o_.opt("vrml_image", h.vrml_image);
    o_.opt("statusmap_image", h.statusmap_image);
    if (h.have_2d_coords) o_.format(FMT_COMPILE("\t2d_coords\t{},{}\n"), h.x_2d, h.y_2d);
    if (h.have_3d_coords)
      o_.format(FMT_COMPILE("\t3d_coords\t{:.6f},{:.6f},{:.6f}\n"), h.x_3d, h.y_3d, h.z_3d);
    o_.opt("notes", h.notes);
    o_.opt("notes_url", h.notes_url);
    o_.opt("action_url", h.action_url);
    o_.flag("retain_status_information", h.retain_status_information);
    o_.flag("retain_nonstatus_information", h.retain_nonstatus_information);
    o_.custom(h.custom_variables);
    o_.end();
  }

  void checkable_numbers(const model::Checkable& x) {
    if (format_ == ObjectCacheFormat::naemon) o_.num("check_timeout", x.check_timeout);
    o_.num("hourly_value", static_cast<unsigned>(x.hourly_value));
    o_.fixed("check_interval", x.check_interval);
    o_.fixed("retry_interval", x.retry_interval);
    o_.num("max_check_attempts", x.max_check_attempts);
  }

  template <std::size_t N>
  void checkable_flags(const model::Checkable& x, const std::array<OptionLetter, N>& letters) {
    o_.flag("active_checks_enabled", x.active_checks_enabled);
    o_.flag("passive_checks_enabled", x.passive_checks_enabled);
    o_.flag("obsess", x.obsess);
    o_.flag("event_handler_enabled", x.event_handler_enabled);
    o_.fixed("low_flap_threshold", x.low_flap_threshold);
    o_.fixed("high_flap_threshold", x.high_flap_threshold);
    o_.flag("flap_detection_enabled", x.flap_detection_enabled);
    o_.options("flap_detection_options", x.flap_detection_options, letters, 'o');
    o_.num("freshness_threshold", static_cast<int>(x.freshness_threshold));
    o_.flag("check_freshness", x.check_freshness);
    o_.options("notification_options", x.notification_options, letters, 'r');
    o_.flag("notifications_enabled", x.notifications_enabled);
    o_.fixed("notification_interval", x.notification_interval);
    o_.fixed("first_notification_delay", x.first_notification_delay);
    o_.options("stalking_options", x.stalking_options, letters, 'o');
    o_.flag("process_perf_data", x.process_perf_data);
  }

  void service(const model::Service& s) {
    o_.begin("service");
    o_.str("host_name", s.host_name);
    o_.str("service_description", s.description);
    if (s.display_name_set) o_.str("display_name", s.display_name);
    if (!s.parents.empty()) {
      const model::Service& first = m_.service(s.parents.front());
      // A single parent on the same host is written by description alone, as in the configuration.
      if (s.parents.size() == 1 && first.host == s.host) {
        o_.str("parents", first.description);
      } else {
        o_.raw("\tparents\t");
        for (std::size_t i = 0; i < s.parents.size(); ++i) {
          const model::Service& p = m_.service(s.parents[i]);
          if (i != 0) o_.raw(",");
          o_.raw(p.host_name);
          o_.raw(",");
          o_.raw(p.description);
        }
        o_.raw("\n");
      }
    }
    checkable_head(s);
    static constexpr std::array<std::string_view, 4> k_states{"o", "w", "c", "u"};
    o_.str("initial_state", s.initial_state >= 0 && s.initial_state < 4
                                ? k_states[static_cast<std::size_t>(s.initial_state)]
                                : std::string_view("o"));
    checkable_numbers(s);
    o_.flag("is_volatile", s.is_volatile);
    checkable_flags(s, k_service_letters);
    o_.opt("icon_image", s.icon_image);
    o_.opt("icon_image_alt", s.icon_image_alt);
    o_.opt("notes", s.notes);
    o_.opt("notes_url", s.notes_url);
    o_.opt("action_url", s.action_url);
    o_.flag("retain_status_information", s.retain_status_information);
    o_.flag("retain_nonstatus_information", s.retain_nonstatus_information);
    o_.custom(s.custom_variables);
    o_.end();
  }

  template <typename Dependency, typename Names, std::size_t N>
  void dependency(std::string_view type, const Dependency& d, Names&& names,
                  const std::array<OptionLetter, N>& letters) {
    o_.begin(type);
    names(d);
    o_.opt("dependency_period", period(d.period));
    o_.flag("inherits_parent", d.inherits_parent);
    o_.options(d.kind == model::DependencyKind::notification ? "notification_failure_options"
                                                             : "execution_failure_options",
               d.failure_options, letters, 'o');
    o_.end();
  }

  template <std::size_t N>
  void escalation_rule(const model::EscalationRule& r, const std::array<OptionLetter, N>& letters) {
    o_.num("first_notification", r.first_notification);
    o_.num("last_notification", r.last_notification);
    // -2 is the model's "set nowhere"; Naemon's value is then 0.
    o_.fixed("notification_interval", r.notification_interval == -2 ? 0.0 : r.notification_interval);
    o_.opt("escalation_period", period(r.period));
    o_.options("escalation_options", r.options, letters, 'r');
    o_.reversed_list("contacts", r.contacts, [&](model::ContactId id) { return contact(id); });
    o_.reversed_list("contact_groups", r.contact_groups,
                     [&](model::ContactgroupId id) { return contactgroup(id); });
  }

  void service_dependency(const model::ServiceDependency& d) {
    dependency(
        "servicedependency", d,
        [&](const model::ServiceDependency& x) {
          const model::Service& master = m_.service(x.master);
          const model::Service& dependent = m_.service(x.dependent);
          o_.str("host_name", master.host_name);
          o_.str("service_description", master.description);
          o_.str("dependent_host_name", dependent.host_name);
          o_.str("dependent_service_description", dependent.description);
        },
        k_service_letters);
  }

  void service_escalation(const model::ServiceEscalation& e) {
    const model::Service& s = m_.service(e.service);
    o_.begin("serviceescalation");
    o_.str("host_name", s.host_name);
    o_.str("service_description", s.description);
    escalation_rule(e.rule, k_service_letters);
    o_.end();
  }

  void host_dependency(const model::HostDependency& d) {
    dependency(
        "hostdependency", d,
        [&](const model::HostDependency& x) {
          o_.str("host_name", m_.host(x.master).name);
          o_.str("dependent_host_name", m_.host(x.dependent).name);
        },
        k_host_letters);
  }

  void host_escalation(const model::HostEscalation& e) {
    o_.begin("hostescalation");
    o_.str("host_name", m_.host(e.host).name);
    escalation_rule(e.rule, k_host_letters);
    o_.end();
  }

 private:
  const model::Model& m_;
  Out& o_;
  const ObjectCacheFormat format_;
  std::vector<std::string_view> host_names_;  // scratch for sorting member and parent names
};

// Formats the file into `buf` in Naemon's object order, handing it to `drain` whenever it holds k_chunk
// bytes or more (and at the end). Stops early and returns false when drain does. Escalations and
// dependencies are already in objects.cache order in the model (config/naemon_order.hpp).
template <typename Drain>
bool format_chunked(const model::Model& m, std::int64_t created, ObjectCacheFormat format, std::string& buf,
                    Drain&& drain) {
  Out o(buf);
  Writer w(m, o, format);
  auto flush = [&] { return buf.size() < k_chunk || drain(buf); };
  model::NameOrder computed;
  const model::NameOrder& order = m.has_by_name() ? m.by_name : (computed = model::name_order(m));
  w.header(created);
  for (model::TimeperiodId id : order.timeperiods) w.timeperiod(m.timeperiods[model::index(id)]);
  for (model::CommandId id : order.commands) w.command(m.commands[model::index(id)]);
  for (model::ContactgroupId id : order.contactgroups) w.contactgroup(m.contactgroups[model::index(id)]);
  for (model::HostgroupId id : order.hostgroups) w.hostgroup(m.hostgroups[model::index(id)]);
  for (model::ServicegroupId id : order.servicegroups) {
    w.servicegroup(m.servicegroups[model::index(id)]);
    if (!flush()) return false;
  }
  for (model::ContactId id : order.contacts) w.contact(m.contacts[model::index(id)]);
  for (model::HostId id : order.hosts) {
    w.host(m.host(id));
    if (!flush()) return false;
  }
  for (model::ServiceId id : order.services) {
    w.service(m.service(id));
    if (!flush()) return false;
  }
  for (const model::ServiceDependency& d : m.service_dependencies) {
    w.service_dependency(d);
    if (!flush()) return false;
  }
  for (const model::ServiceEscalation& e : m.service_escalations) {
    w.service_escalation(e);
    if (!flush()) return false;
  }
  for (const model::HostDependency& d : m.host_dependencies) {
    w.host_dependency(d);
    if (!flush()) return false;
  }
  for (const model::HostEscalation& e : m.host_escalations) {
    w.host_escalation(e);
    if (!flush()) return false;
  }
  return buf.empty() || drain(buf);
}

}  // namespace

void format_object_cache(const model::Model& model, std::int64_t created, std::string& out,
                         ObjectCacheFormat format) {
  format_chunked(model, created, format, out, [](std::string&) { return true; });
}

ObjectCacheResult write_object_cache(const std::string& path, const model::Model& model, std::int64_t created,
                                     ObjectCacheFormat format) {
  ObjectCacheResult result;
  if (path.empty() || path == "/dev/null") return result;
  // Naemon's temp file name (the path with six random characters appended, in the same directory) and its
  // mode, readable by the CGIs' user through group or world.
  AtomicFile file;
  if (!file.open(path, "XXXXXX", S_IRUSR | S_IWUSR | S_IRGRP | S_IWGRP | S_IROTH)) {
    result.error = fmt::format("Unable to create temp file '{}XXXXXX' for writing object cache data: {}",
                               path, std::strerror(file.failure().error));
    return result;
  }
  std::string buf;
  buf.reserve(k_chunk + k_chunk / 4);
  bool ok = format_chunked(model, created, format, buf, [&](std::string& chunk) {
    if (!file.write(chunk)) return false;
    result.bytes += chunk.size();
    chunk.clear();
    return true;
  });
  if (!ok || !file.commit(/*fsync=*/true)) {
    const AtomicFile::Failure& f = file.failure();
    result.error = fmt::format("Unable to write object cache file '{}' ({} of '{}'): {}", path, f.step,
                               f.temp_path, std::strerror(f.error));
    return result;
  }
  result.written = true;
  return result;
}

}  // namespace vedette::files
