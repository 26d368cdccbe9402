#include "engine/macros/macro_resolver.hpp"

#include "config/command_compiler.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <tuple>

namespace vedette::engine::macro_internal {
namespace {

// "$X:group:delimiter$": the members' values joined; members without one (unknown or NULL) are left out.
template <class Ids, class ValueOf>
void join_members(const Ids& ids, std::string_view delimiter, Delimit delimit, Value& v, ValueOf&& value_of) {
  std::string joined, item_buf;
  config::OutsideSpans item_outside;
  bool any = false;
  for (const auto id : ids) {
    item_outside.clear();
    Value item{{}, item_buf, false, false, v.outside != nullptr ? &item_outside : nullptr};
    if (!value_of(id, item) || item.null) continue;
    if (delimit == Delimit::after_text ? !joined.empty() : any) joined += delimiter;
    for (const config::OutsideSpan& span : item_outside)
      v.outside->push_back({joined.size() + span.begin, joined.size() + span.end});
    joined += item.view;
    any = true;
  }
  v.buf = std::move(joined);
  v.set_owned();
}

}  // namespace

void Value::set_int(long long v) {
  char tmp[24];
  const auto res = std::to_chars(tmp, tmp + sizeof tmp, v);
  buf.assign(tmp, res.ptr);
  view = buf;
}

void Value::set_uint(unsigned long long v) {
  char tmp[24];
  const auto res = std::to_chars(tmp, tmp + sizeof tmp, v);
  buf.assign(tmp, res.ptr);
  view = buf;
}

void Value::set_fixed(double v, int decimals) {
  char tmp[64];
  const int n = std::snprintf(tmp, sizeof tmp, "%.*f", decimals, v);
  buf.assign(tmp, static_cast<std::size_t>(std::clamp(n, 0, static_cast<int>(sizeof tmp) - 1)));
  view = buf;
}

void Value::set_duration(unsigned long d) {
  char tmp[80];
  const int n = std::snprintf(tmp, sizeof tmp, "%dd %dh %dm %ds", static_cast<int>(d / 86400),
                              static_cast<int>(d % 86400 / 3600), static_cast<int>(d % 3600 / 60),
                              static_cast<int>(d % 60));
  buf.assign(tmp, static_cast<std::size_t>(std::clamp(n, 0, static_cast<int>(sizeof tmp) - 1)));
  view = buf;
}

long parse_atoi(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r'))) ++i;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  long value = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9' && value < 1'000'000; ++i)
    value = value * 10 + (s[i] - '0');
  return negative ? -value : value;
}

bool Resolver::resolve(std::string_view name, Value& v, bool& cleanable) {
  cleanable = false;
  if (name.starts_with("ARG")) {
    const long n = parse_atoi(name.substr(3));
    if (n <= 0 || n > static_cast<long>(config::k_max_command_args)) return false;
    const auto i = static_cast<std::size_t>(n - 1);
    v.set(i < ctx_.args.size() ? ctx_.args[i] : std::string_view{});
    if (v.outside != nullptr && i < ctx_.args_outside.size() && !ctx_.args_outside[i].empty())
      v.outside->assign(ctx_.args_outside[i].begin(), ctx_.args_outside[i].end());
    return true;
  }
  if (name.starts_with("USER")) {
    const long n = parse_atoi(name.substr(4));
    if (n <= 0 || n > 256) return false;
    const auto i = static_cast<std::size_t>(n - 1);
    v.set(i < m_.user_macros.size() ? m_.user_macros[i] : std::string_view{});
    return true;
  }
  if (name.starts_with("VAULT")) return false;  // a broker module's; none is loaded
  if (name == "HOSTADDRESS" && has_host()) {    // in nearly every check command
    v.set(m_.host(ctx_.host).address);
    return true;
  }

  std::string_view base = name;
  std::string_view arg1, arg2;
  bool has_arg1 = false, has_arg2 = false;
  if (const std::size_t colon = name.find(':'); colon != std::string_view::npos) {
    base = name.substr(0, colon);
    arg1 = name.substr(colon + 1);
    has_arg1 = true;
    if (const std::size_t second = arg1.find(':'); second != std::string_view::npos) {
      arg2 = arg1.substr(second + 1);
      arg1 = arg1.substr(0, second);
      has_arg2 = true;
    }
  }
  const Arg a1{arg1, has_arg1}, a2{arg2, has_arg2};

  if (const std::optional<M> code = find_code(base)) {
    cleanable = is_cleaned(*code);
    v.from_outside = is_outside(*code);
    return keyed(*code, a1, a2, v);
  }
  if (base.starts_with("CONTACTADDRESS")) return contact_address(base, a1, a2, v);
  if (base.starts_with('_')) {
    const bool known = custom(base, a1, a2, v);
    cleanable = changed_at_run_time_;
    v.from_outside = changed_at_run_time_;
    return known;
  }
  return false;
}

// Hosts and contacts (their standard macros, custom variables and addresses) are addressed alike: "$X$" the
// current one, "$X:name$" the one named, "$X:group:delimiter$" the members of the group named.
template <class Id, class GroupId, class Members, class ValueOf>
bool Resolver::one_or_group(Arg a1, Arg a2, Id current, const NameIndex<Id>& objects,
                            const NameIndex<GroupId>& groups, Members&& members_of, Delimit delimit, Value& v,
                            ValueOf&& value_of) {
  if (!a2.present) {
    Id id = current;
    if (a1.present) {
      const auto found = find_in(objects, a1.text);
      if (!found) return false;
      id = *found;
    } else if (!model::is_set(id)) {
      return false;
    }
    return value_of(id, v);
  }
  const auto group = find_in(groups, a1.text);
  if (!group) return false;
  join_members(members_of(*group), a2.text, delimit, v, value_of);
  return true;
}

template <class ValueOf>
bool Resolver::for_hosts(Arg a1, Arg a2, Value& v, ValueOf&& value_of) {
  const auto members = [&](model::HostgroupId g) { return hosts_by_name(m_.hostgroups[model::index(g)]); };
  return one_or_group(a1, a2, ctx_.host, m_.host_by_name, m_.hostgroup_by_name, members, Delimit::after_text,
                      v, value_of);
}

template <class ValueOf>
bool Resolver::for_contacts(Arg a1, Arg a2, Value& v, ValueOf&& value_of) {
  const auto members = [&](model::ContactgroupId g) -> const std::vector<model::ContactId>& {
    return m_.contactgroups[model::index(g)].members;
  };
  return one_or_group(a1, a2, ctx_.contact, m_.contact_by_name, m_.contactgroup_by_name, members,
                      Delimit::after_each, v, value_of);
}

// "$X:servicegroup:delimiter$"; services have no group-free "$X:name$" form.
template <class ValueOf>
bool Resolver::for_servicegroup(Arg a1, Arg a2, Value& v, ValueOf&& value_of) {
  const auto group = find_servicegroup(a1.text);
  if (!group) return false;
  join_members(services_by_name(m_.servicegroups[model::index(*group)]), a2.text, Delimit::after_each, v,
               value_of);
  return true;
}

bool Resolver::keyed(M code, Arg a1, Arg a2, Value& v) {
  if (is_host_code(code)) {
    return for_hosts(a1, a2, v, [&](model::HostId h, Value& out) { return host_macro(code, h, out); });
  }
  if (is_hostgroup_code(code)) {
    if (a1.present) {
      const auto group = find_in(m_.hostgroup_by_name, a1.text);
      return group && hostgroup_macro(code, *group, v);
    }
    if (!has_host() || m_.host(ctx_.host).hostgroups.empty()) return false;
    return hostgroup_macro(code, m_.host(ctx_.host).hostgroups.back(), v);
  }
  if (is_service_code(code)) {
    const auto value_of = [&](model::ServiceId s, Value& out) { return service_macro(code, s, out); };
    if (!a1.present && !a2.present) return model::is_set(ctx_.service) && value_of(ctx_.service, v);
    if (a1.text.empty()) {  // "$X::description$": a service of the current host
      if (!has_host()) return false;
      const model::ServiceId id = m_.find_service(m_.host(ctx_.host).name, a2.text);
      if (model::is_set(id)) return value_of(id, v);
      v.set_null();
      return true;
    }
    if (!a2.present) return false;
    const model::ServiceId id = m_.find_service(a1.text, a2.text);
    if (model::is_set(id)) return value_of(id, v);
    return for_servicegroup(a1, a2, v, value_of);
  }
  if (is_servicegroup_code(code)) {
    if (a1.present) {
      const auto group = find_servicegroup(a1.text);
      return group && servicegroup_macro(code, *group, v);
    }
    if (!model::is_set(ctx_.service) || m_.service(ctx_.service).servicegroups.empty()) return false;
    return servicegroup_macro(code, m_.service(ctx_.service).servicegroups.back(), v);
  }
  if (is_contact_code(code)) {
    return for_contacts(a1, a2, v,
                        [&](model::ContactId c, Value& out) { return contact_macro(code, c, out); });
  }
  if (is_contactgroup_code(code)) {
    if (a1.present) {
      const auto group = find_in(m_.contactgroup_by_name, a1.text);
      return group && contactgroup_macro(code, *group, v);
    }
    if (!model::is_set(ctx_.contact) || m_.contacts[model::index(ctx_.contact)].contactgroups.empty())
      return false;
    return contactgroup_macro(code, m_.contacts[model::index(ctx_.contact)].contactgroups.back(), v);
  }
  if (is_notification_code(code)) {
    notification_macro(code, v);  // set while notifying only; empty everywhere else
    return true;
  }
  if (is_datetime_code(code)) return datetime_macro(code, a1, a2, v);
  if (is_static_code(code)) return static_macro(code, v);
  if (is_summary_code(code)) return summary_macro(code, v);
  return false;
}

std::optional<model::ServicegroupId> Resolver::find_servicegroup(std::string_view name) const {
  // Model has no servicegroup name index; groups are few.
  for (std::uint32_t i = 0; i < m_.servicegroups.size(); ++i)
    if (m_.servicegroups[i].name == name) return model::ServicegroupId{i};
  return std::nullopt;
}

std::vector<model::HostId> Resolver::hosts_by_name(const model::Hostgroup& g) const {
  std::vector<model::HostId> members = g.members;
  std::sort(members.begin(), members.end(),
            [&](model::HostId x, model::HostId y) { return m_.host(x).name < m_.host(y).name; });
  return members;
}

std::vector<model::ServiceId> Resolver::services_by_name(const model::Servicegroup& g) const {
  std::vector<model::ServiceId> members = g.members;
  std::sort(members.begin(), members.end(), [&](model::ServiceId x, model::ServiceId y) {
    const model::Service& sx = m_.service(x);
    const model::Service& sy = m_.service(y);
    return std::tie(sx.host_name, sx.description) < std::tie(sy.host_name, sy.description);
  });
  return members;
}

void Resolver::expand_nested(std::string_view text, unsigned options, Value& v) {
  if (depth_ >= k_max_nesting) {
    v.set(text);
    return;
  }
  std::string expanded;
  expand_at_depth(text, ctx_, options, expanded, depth_ + 1, v.outside, k_max_nested_bytes);
  v.buf = std::move(expanded);
  v.set_owned();
}

bool Resolver::contact_address(std::string_view base, Arg a1, Arg a2, Value& v) {
  const long n = parse_atoi(base.substr(14)) - 1;  // $CONTACTADDRESS1$ is address1
  if (n < 0 || n >= 6) return false;
  const auto slot = static_cast<std::size_t>(n);
  return for_contacts(a1, a2, v, [&](model::ContactId c, Value& out) {
    out.set(m_.contacts[model::index(c)].addresses[slot]);
    return true;
  });
}

bool Resolver::custom_of(const std::vector<model::CustomVariable>& vars, const CheckState* st,
                         std::string_view var, Value& v) {
  for (const model::CustomVariable& cv : vars) {
    if (cv.name == var) {
      const std::string* changed =
          st != nullptr && st->overrides != nullptr ? st->overrides->custom_variable(var) : nullptr;
      v.set(changed != nullptr ? std::string_view(*changed) : cv.value);
      if (changed != nullptr) changed_at_run_time_ = true;
      return true;
    }
  }
  return false;
}

bool Resolver::custom(std::string_view base, Arg a1, Arg a2, Value& v) {
  if (base.starts_with("_HOST")) {
    const std::string_view var = base.substr(5);
    return for_hosts(a1, a2, v, [&](model::HostId h, Value& out) {
      return custom_of(m_.host(h).custom_variables, host_state(h), var, out);
    });
  }
  if (base.starts_with("_SERVICE")) {
    const std::string_view var = base.substr(8);
    const auto value_of = [&](model::ServiceId s, Value& out) {
      return custom_of(m_.service(s).custom_variables, service_state(s), var, out);
    };
    if (!a1.present && !a2.present) return model::is_set(ctx_.service) && value_of(ctx_.service, v);
    // Naemon looks the service up on the current host whatever the first argument says; Vedette uses the
    // host named there, empty meaning the current host, as the standard service macros do.
    std::string_view host_name = a1.text;
    if (host_name.empty()) {
      if (!has_host()) return false;
      host_name = m_.host(ctx_.host).name;
    }
    const model::ServiceId id =
        a2.present ? m_.find_service(host_name, a2.text) : model::no_id<model::ServiceId>();
    if (model::is_set(id)) return value_of(id, v);
    if (!a2.present) return false;
    return for_servicegroup(a1, a2, v, value_of);
  }
  if (base.starts_with("_CONTACT")) {
    const std::string_view var = base.substr(8);
    return for_contacts(a1, a2, v, [&](model::ContactId c, Value& out) {
      return custom_of(m_.contacts[model::index(c)].custom_variables, nullptr, var, out);
    });
  }
  return false;
}

}  // namespace vedette::engine::macro_internal
