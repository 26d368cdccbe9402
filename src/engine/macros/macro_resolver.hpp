// The value of one macro for a MacroContext (Naemon's grab_macro_value_r). Internal to
// engine/macros/macro*.cpp; callers use engine/macros/macros.hpp. Core thread only, as the macros. The
// Resolver's members live in three files:
//   macro_resolver.cpp  parsing of `NAME:arg1:arg2`, which objects a macro addresses, custom variables
//   macro_objects.cpp   host, service, group and contact macros
//   macro_globals.cpp   notification, date and time, static (main config) and summary macros
#pragma once

#include "engine/macros/macro_names.hpp"
#include "engine/macros/macros.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace vedette::engine::macro_internal {

constexpr int k_max_nesting = 8;  // notes that name themselves would recurse forever in Naemon
// What one nested expansion (a note, a notes or action URL) may grow to: a note naming itself b times
// would otherwise cost b^8 expansions (b = 10: ~11 GB). The plugin output's cap, far above any real note.
constexpr std::size_t k_max_nested_bytes = 64 * 1024;

// process_macros at a nesting depth (defined in macros.cpp): the notes and URLs of objects are themselves
// expanded, each level with its own scratch buffers. `outside`, if set, gets the spans of `out` (from its
// size on entry) whose text came from outside the configuration. Once `out` holds `max_bytes` more bytes
// than on entry, the rest of `text` is left out.
void expand_at_depth(std::string_view text, const MacroContext& ctx, unsigned options, std::string& out,
                     int depth, config::OutsideSpans* outside = nullptr,
                     std::size_t max_bytes = static_cast<std::size_t>(-1));

// C's atoi on a string_view: leading blanks, a sign, digits; 0 when there are none.
long parse_atoi(std::string_view s);

// A macro's value: a view of long-lived text (model, state, config) or of `buf`.
struct Value {
  std::string_view view;
  std::string& buf;
  bool null = false;  // Naemon's NULL output: nothing inserted, skipped in group lists
  // Where the value came from outside the configuration: all of it (from_outside), or the spans of `view`
  // in *outside (a note or an $ARGn$ with such macros in it; only filled if set).
  bool from_outside = false;
  config::OutsideSpans* outside = nullptr;

  void set(std::string_view v) { view = v; }
  void set_owned() { view = buf; }
  void set_null() {
    view = {};
    null = true;
  }
  // Out of line: inlined with a constant argument, GCC 12 reports a false -Wrestrict in string::assign.
  void set_int(long long v);
  void set_uint(unsigned long long v);
  void set_fixed(double v, int decimals);
  // Naemon prints times with "%lu" of an unsigned long cast.
  void set_time(Time t) { set_uint(static_cast<unsigned long>(t)); }
  void set_duration(unsigned long d);
};

// An on-demand argument: `$HOSTSTATE:web01$` has arg1 "web01", `$SERVICESTATE::HTTP$` an empty arg1.
struct Arg {
  std::string_view text;
  bool present = false;
};

// What a host macro and its service twin (or a hostgroup macro and its servicegroup twin) read the same
// way; macro_objects.cpp maps each twin's code to one of these. Fields from `state` on need the CheckState.
enum class Field : std::uint8_t {
  none,
  name,
  alias,
  action_url,
  notes_url,
  notes,
  check_command,
  max_attempts,
  ack_author,
  ack_author_name,
  ack_author_alias,
  ack_comment,
  state,
  state_id,
  last_state,
  last_state_id,
  check_type,
  state_type,
  output,
  long_output,
  perfdata,
  attempt,
  duration_sec,
  duration,
  execution_time,
  latency,
  last_check,
  last_state_change,
  percent_change,
  notification_number,
  notification_id,
  event_id,
  last_event_id,
  problem_id,
  last_problem_id,
  problem_start,
  problem_end,
  problem_duration_sec,
  problem_duration,
};

// Where "$X:group:delimiter$" puts the delimiter: Naemon's host lists only after text so far, its service
// and contact lists after every value.
enum class Delimit : std::uint8_t { after_text, after_each };

template <class Id>
using NameIndex = std::unordered_map<std::string_view, Id>;

class Resolver {
 public:
  Resolver(const MacroContext& ctx, int depth) : ctx_(ctx), m_(ctx.model), depth_(depth) {}

  // `name` is what sits between the dollars. `cleanable` tells whether k_strip_illegal applies to the
  // value. False: Naemon does not know the macro.
  bool resolve(std::string_view name, Value& v, bool& cleanable);

 private:
  // macro_resolver.cpp: which object a macro reads.
  bool keyed(M code, Arg a1, Arg a2, Value& v);
  template <class Id, class GroupId, class Members, class ValueOf>
  bool one_or_group(Arg a1, Arg a2, Id current, const NameIndex<Id>& objects,
                    const NameIndex<GroupId>& groups, Members&& members_of, Delimit delimit, Value& v,
                    ValueOf&& value_of);
  template <class ValueOf>
  bool for_hosts(Arg a1, Arg a2, Value& v, ValueOf&& value_of);
  template <class ValueOf>
  bool for_contacts(Arg a1, Arg a2, Value& v, ValueOf&& value_of);
  template <class ValueOf>
  bool for_servicegroup(Arg a1, Arg a2, Value& v, ValueOf&& value_of);
  bool contact_address(std::string_view base, Arg a1, Arg a2, Value& v);
  bool custom(std::string_view base, Arg a1, Arg a2, Value& v);
  // A custom variable's value: CHANGE_CUSTOM_*_VAR's if a command changed it, else the configured one.
  bool custom_of(const std::vector<model::CustomVariable>& vars, const CheckState* st, std::string_view var,
                 Value& v);
  void expand_nested(std::string_view text, unsigned options, Value& v);

  [[nodiscard]] bool has_host() const { return model::is_set(ctx_.host); }
  const HostState* host_state(model::HostId id) const {
    if (id == ctx_.host && ctx_.host_state) return ctx_.host_state;
    if (ctx_.all_hosts && model::index(id) < ctx_.all_hosts->size())
      return &(*ctx_.all_hosts)[model::index(id)];
    return nullptr;
  }
  const ServiceState* service_state(model::ServiceId id) const {
    if (id == ctx_.service && ctx_.service_state) return ctx_.service_state;
    if (ctx_.all_services && model::index(id) < ctx_.all_services->size())
      return &(*ctx_.all_services)[model::index(id)];
    return nullptr;
  }
  template <class Id>
  static std::optional<Id> find_in(const NameIndex<Id>& map, std::string_view name) {
    auto it = map.find(name);
    if (it == map.end()) return std::nullopt;
    return it->second;
  }
  std::optional<model::ServicegroupId> find_servicegroup(std::string_view name) const;
  // Naemon's group members live in trees sorted by name.
  std::vector<model::HostId> hosts_by_name(const model::Hostgroup& g) const;
  std::vector<model::ServiceId> services_by_name(const model::Servicegroup& g) const;

  // macro_objects.cpp
  bool host_macro(M code, model::HostId id, Value& v);
  bool service_macro(M code, model::ServiceId id, Value& v);
  template <class State>
  bool twin_macro(M code, const model::Checkable& object, const State* s, Value& v);
  template <class Object>
  bool link_macro(Field f, const Object& object, Value& v);
  template <class Group>
  bool group_macro(Field f, const Group& g, Value& v);
  template <class Id>
  void downtime_macro(Id id, Id notified, int NotificationMacros::*notified_depth, Value& v) const;
  bool host_service_totals(M code, const model::Host& h, Value& v) const;
  bool hostgroup_macro(M code, model::HostgroupId id, Value& v);
  bool servicegroup_macro(M code, model::ServicegroupId id, Value& v);
  bool contact_macro(M code, model::ContactId id, Value& v);
  bool contactgroup_macro(M code, model::ContactgroupId id, Value& v);
  unsigned long problem_duration(const state::EventIds& e) const;
  void ack_macro(int which, Value& v) const;

  // macro_globals.cpp
  void notification_macro(M code, Value& v) const;
  bool datetime_macro(M code, Arg a1, Arg a2, Value& v);
  bool static_macro(M code, Value& v);
  bool summary_macro(M code, Value& v);
  bool is_contact_for(model::ContactId c, const model::Checkable& object) const;

  const MacroContext& ctx_;
  const model::Model& m_;
  int depth_;
  // A custom variable read had a value CHANGE_CUSTOM_*_VAR set: from outside, so cleaned as outputs are
  // (Naemon cleans no custom variable).
  bool changed_at_run_time_ = false;
};

}  // namespace vedette::engine::macro_internal
