#include "config/model_builder.hpp"

#include "config/command_compiler.hpp"
#include "config/list_items_internal.hpp"
#include "config/naemon_order.hpp"
#include "config/timeperiod_parser.hpp"
#include "native/classify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <functional>
#include <unordered_map>
#include <unordered_set>

namespace vedette::config {

namespace {

using internal::matches;
using internal::RegexCache;
using internal::split_list;
using internal::split_list_vector;
using internal::trim;
using model::OptionSet;

// A set of dense ids that empties in O(1): each start() bumps the generation. Allocating and clearing a
// per-host array for every service definition cost 1 GB of memset at 100k services.
class IdMarks {
 public:
  void start(std::size_t count) {
    if (stamps_.size() < count) stamps_.resize(count, 0);
    ++generation_;
  }
  [[nodiscard]] bool test(std::uint32_t i) const { return stamps_[i] == generation_; }
  void set(std::uint32_t i) { stamps_[i] = generation_; }

 private:
  std::vector<std::uint32_t> stamps_;
  std::uint32_t generation_ = 0;
};

template <typename Id>
void sort_unique(std::vector<Id>& list) {
  std::sort(list.begin(), list.end());
  list.erase(std::unique(list.begin(), list.end()), list.end());
}

template <typename Id>
void add_unique(std::vector<Id>& list, Id id) {
  if (std::find(list.begin(), list.end(), id) == list.end()) list.push_back(id);
}

// A letter or word of an option list and the bits it sets.
struct OptionName {
  std::string_view letter;
  std::string_view word;
  OptionSet bits;
};

using OptionTable = std::initializer_list<OptionName>;
const OptionTable k_host_notification_options = {{"d", "down", model::k_opt_down},
                                                 {"u", "unreachable", model::k_opt_unreachable},
                                                 {"r", "recovery", model::k_opt_recovery},
                                                 {"f", "flapping", model::k_opt_flapping},
                                                 {"s", "downtime", model::k_opt_downtime}};
const OptionTable k_service_notification_options = {
    {"w", "warning", model::k_opt_warning},   {"u", "unknown", model::k_opt_unknown},
    {"c", "critical", model::k_opt_critical}, {"r", "recovery", model::k_opt_recovery},
    {"f", "flapping", model::k_opt_flapping}, {"s", "downtime", model::k_opt_downtime}};
const OptionTable k_host_state_options = {{"o", "up", model::k_opt_up},
                                          {"d", "down", model::k_opt_down},
                                          {"u", "unreachable", model::k_opt_unreachable}};
const OptionTable k_service_state_options = {{"o", "ok", model::k_opt_ok},
                                             {"w", "warning", model::k_opt_warning},
                                             {"u", "unknown", model::k_opt_unknown},
                                             {"c", "critical", model::k_opt_critical}};
const OptionTable k_host_stalking_options = {{"o", "up", model::k_opt_up},
                                             {"d", "down", model::k_opt_down},
                                             {"u", "unreachable", model::k_opt_unreachable},
                                             {"N", "notifications", model::k_opt_notifications}};
const OptionTable k_service_stalking_options = {{"o", "ok", model::k_opt_ok},
                                                {"w", "warning", model::k_opt_warning},
                                                {"u", "unknown", model::k_opt_unknown},
                                                {"c", "critical", model::k_opt_critical},
                                                {"N", "notifications", model::k_opt_notifications}};
const OptionTable k_host_escalation_options = {{"d", "down", model::k_opt_down},
                                               {"u", "unreachable", model::k_opt_unreachable},
                                               {"r", "recovery", model::k_opt_recovery}};
const OptionTable k_service_escalation_options = {{"w", "warning", model::k_opt_warning},
                                                  {"u", "unknown", model::k_opt_unknown},
                                                  {"c", "critical", model::k_opt_critical},
                                                  {"r", "recovery", model::k_opt_recovery}};
const OptionTable k_host_dependency_options = {{"o", "up", model::k_opt_up},
                                               {"d", "down", model::k_opt_down},
                                               {"u", "unreachable", model::k_opt_unreachable},
                                               {"p", "pending", model::k_opt_pending}};
const OptionTable k_service_dependency_options = {{"o", "ok", model::k_opt_ok},
                                                  {"w", "warning", model::k_opt_warning},
                                                  {"u", "unknown", model::k_opt_unknown},
                                                  {"c", "critical", model::k_opt_critical},
                                                  {"p", "pending", model::k_opt_pending}};

class Builder {
 public:
  Builder(ObjectStore& store, const BuildOptions& options, Diagnostics& diags)
      : store_(store), options_(options), diags_(diags), model_(std::make_unique<model::Model>()) {}

  std::unique_ptr<model::Model> run() {
    for (const std::string& value : options_.user_macros) model_->user_macros.push_back(intern(value));
    build_timeperiods();
    build_commands();
    build_contacts();
    build_contactgroups();
    build_hosts();
    build_hostgroups();
    merge_hostextinfo();
    build_services();
    merge_serviceextinfo();
    build_servicegroups();
    build_host_dependencies();
    build_service_dependencies();
    build_host_escalations();
    build_service_escalations();
    preflight();
    model_->by_name = model::name_order(*model_);
    order_like_naemon(
        store_, options_,
        {host_raws_, service_raws_, contact_raws_, hostgroup_raws_, servicegroup_raws_, contactgroup_raws_,
         host_escalation_defs_, service_escalation_defs_, host_dependency_defs_, service_dependency_defs_},
        *model_);
    return std::move(model_);
  }

 private:
  // ---- small helpers ----------------------------------------------------------------------------------

  std::string_view intern(std::string_view s) { return model_->strings.intern(s); }

  bool bool_attr(const RawObject& obj, DirectiveKey key, bool fallback) {
    const RawAttr* a = obj.find(key);
    if (a == nullptr || a->is_null) return fallback;
    if (a->parsed_as == RawAttr::Parsed::flag) return a->parsed != 0;
    bool value = fallback;
    if (a->value.empty() || (a->value.front() != '0' && a->value.front() != '1')) {
      diags_.error(fmt::format("Invalid boolean value '{}' for {} in {} definition", a->value, key.name,
                               object_type_name(obj.type)),
                   obj.at);
    } else {
      value = a->value.front() == '1';
    }
    a->parsed_as = RawAttr::Parsed::flag;
    a->parsed = value ? 1 : 0;
    return value;
  }

  // Numbers are read as Naemon reads them (atoi/strtod: leading number, rest ignored); text that is not
  // a number at all is reported, because Naemon would silently take it as 0.
  double number_attr(const RawObject& obj, DirectiveKey key, double fallback) {
    const RawAttr* a = obj.find(key);
    if (a == nullptr || a->is_null) return fallback;
    if (a->parsed_as == RawAttr::Parsed::number) return a->parsed;
    const double v = parse_number(obj, *a, key, fallback);
    a->parsed_as = RawAttr::Parsed::number;
    a->parsed = v;
    return v;
  }

  double parse_number(const RawObject& obj, const RawAttr& attr, DirectiveKey key, double fallback) {
    const RawAttr* a = &attr;
    double v = 0;
    auto [ptr, ec] = std::from_chars(a->value.data(), a->value.data() + a->value.size(), v);
    if (ec == std::errc() && ptr == a->value.data() + a->value.size()) return v;
    // Not a plain number: take what strtod() takes, as Naemon does.
    std::string text(a->value);
    char* end = nullptr;
    v = std::strtod(text.c_str(), &end);
    if (end == text.c_str()) {
      diags_.error(fmt::format("Invalid numeric value '{}' for {} in {} definition", a->value, key.name,
                               object_type_name(obj.type)),
                   obj.at);
      return fallback;
    }
    if (*end != '\0') {
      diags_.warning(fmt::format("Trailing characters in numeric value '{}' for {} in {} definition ignored",
                                 a->value, key.name, object_type_name(obj.type)),
                     obj.at);
    }
    return v;
  }

  int int_attr(const RawObject& obj, DirectiveKey key, int fallback) {
    return static_cast<int>(number_attr(obj, key, fallback));
  }

  OptionSet options_attr(const RawObject& obj, DirectiveKey key, const OptionTable& table,
                         OptionSet fallback) {
    const RawAttr* a = obj.find(key);
    if (a == nullptr || a->is_null) return fallback;
    if (a->parsed_as == RawAttr::Parsed::options) return static_cast<OptionSet>(a->parsed);
    OptionSet bits = model::k_opt_nothing;
    for (std::string_view item : split_list(a->value)) {
      if (item == "n" || item == "none") {
        bits = model::k_opt_nothing;
        continue;
      }
      if (item == "a" || item == "all") {
        bits = model::k_opt_all;
        continue;
      }
      bool known = false;
      for (const OptionName& o : table) {
        if (item == o.letter || item == o.word) {
          bits |= o.bits;
          known = true;
          break;
        }
      }
      if (!known)
        diags_.error(fmt::format("Invalid {} option '{}' in {} definition", key.name, item,
                                 object_type_name(obj.type)),
                     obj.at);
    }
    a->parsed_as = RawAttr::Parsed::options;
    a->parsed = bits;
    return bits;
  }

  void check_description(const model::Service& s, const RawObject& obj) {
    if (options_.illegal_object_name_chars.empty()) return;
    if (s.description.find_first_of(options_.illegal_object_name_chars) == std::string_view::npos) return;
    diags_.error(fmt::format("The description string for service '{}' on host '{}' contains one or more "
                             "illegal characters.",
                             s.description, s.host_name),
                 obj.at);
  }

  void check_name(std::string_view name, std::string_view what, const RawObject& obj) {
    if (options_.illegal_object_name_chars.empty()) return;
    if (name.find_first_of(options_.illegal_object_name_chars) == std::string_view::npos) return;
    diags_.error(fmt::format("The name of {} '{}' contains one or more illegal characters.", what, name),
                 obj.at);
  }

  model::TimeperiodId find_timeperiod(std::string_view name) {
    auto it = model_->timeperiod_by_name.find(name);
    return it == model_->timeperiod_by_name.end() ? model::no_id<model::TimeperiodId>() : it->second;
  }

  // Resolves "name!arg1!arg2"; reports missing(name) when the command is not defined. Messages are built
  // only on error: formatting them up front cost more than the rest of building a service.
  template <typename Missing>
  model::CommandCall make_call(std::string_view text, const RawObject& obj, Missing&& missing) {
    model::CommandCall call;
    if (text.empty()) return call;
    // Most objects share their command text through a template: split and resolve each text once.
    if (auto cached = calls_.find(text); cached != calls_.end()) return cached->second;
    CommandCall split = split_command_call(text);
    call.raw = intern(text);
    auto it = model_->command_by_name.find(split.name);
    if (it == model_->command_by_name.end()) {
      diags_.error(missing(split.name), obj.at);
      return call;
    }
    call.command = it->second;
    if (!split.args.empty()) {
      call.args = static_cast<std::uint32_t>(model_->command_args.size());
      auto& values = model_->command_args.emplace_back();
      for (const std::string& arg : split.args) values.push_back(intern(arg));
    }
    calls_.emplace(call.raw, call);
    return call;
  }

  std::vector<model::CustomVariable> custom_variables(const RawObject& obj) {
    std::vector<model::CustomVariable> out;
    obj.for_each_custom_variable([&](const RawAttr& a) {
      out.push_back({intern(a.key.substr(1)), intern(a.value), a.is_null});
    });
    return out;
  }

  const regex_t* regex_for(std::string_view item, const RawObject& obj) {
    const regex_t* re = regex_.get(item);
    if (re == nullptr) diags_.error(fmt::format("Invalid regular expression '{}'", item), obj.at);
    return re;
  }

  bool wants_regex(std::string_view item) const {
    if (!options_.use_regexp_matches) return false;
    return options_.use_true_regexp_matching || item.find_first_of("*?+") != std::string_view::npos ||
           item.find("\\.") != std::string_view::npos;
  }

  // Expands a host list ("web1, web*, *, !db1") as Naemon does. Accepted hosts are appended in list order;
  // rejected ones are marked. Returns false (after reporting) when an item matches no host.
  bool expand_hosts(std::string_view list, std::vector<model::HostId>& accepted, IdMarks& rejected,
                    const RawObject& obj) {
    bool ok = true;
    for (std::string_view item : split_list(list)) {
      const bool reject = item.front() == '!';
      if (reject) item.remove_prefix(1);
      bool found = false;
      auto take = [&](model::HostId id) {
        found = true;
        if (reject)
          rejected.set(model::index(id));
        else
          accepted.push_back(id);
      };
      if (wants_regex(item)) {
        if (const regex_t* re = regex_for(item, obj)) {
          for (std::uint32_t i = 0; i < model_->hosts.size(); ++i)
            if (matches(re, model_->hosts[i].name)) take(model::HostId{i});
        }
        found = true;
      } else if (item == "*") {
        for (std::uint32_t i = 0; i < model_->hosts.size(); ++i) take(model::HostId{i});
        found = true;
      } else if (auto it = model_->host_by_name.find(item); it != model_->host_by_name.end()) {
        take(it->second);
      }
      if (!found) {
        diags_.error(fmt::format("Could not find any host matching '{}'", item), obj.at);
        ok = false;
      }
    }
    return ok;
  }

  // Expands a hostgroup list into its members; a `!group` rejects the group's members.
  bool expand_hostgroups(std::string_view list, std::vector<model::HostId>& accepted, IdMarks& rejected,
                         const RawObject& obj) {
    bool ok = true;
    for (std::string_view item : split_list(list)) {
      const bool reject = item.front() == '!';
      if (reject) item.remove_prefix(1);
      bool found = false;
      auto take = [&](const model::Hostgroup& g) {
        found = true;
        for (model::HostId h : g.members) {
          if (reject)
            rejected.set(model::index(h));
          else
            accepted.push_back(h);
        }
      };
      if (wants_regex(item)) {
        if (const regex_t* re = regex_for(item, obj))
          for (const model::Hostgroup& g : model_->hostgroups)
            if (matches(re, g.name)) take(g);
        found = true;
      } else if (item == "*") {
        for (const model::Hostgroup& g : model_->hostgroups) take(g);
        found = true;
      } else if (auto it = model_->hostgroup_by_name.find(item); it != model_->hostgroup_by_name.end()) {
        take(model_->hostgroups[model::index(it->second)]);
      }
      if (!found) {
        diags_.error(fmt::format("Could not find any hostgroup matching '{}'", item), obj.at);
        ok = false;
      }
    }
    return ok;
  }

  // Hosts named by a host list and a hostgroup list together, rejections applied, each host once.
  std::vector<model::HostId> host_set(std::string_view hosts, std::string_view hostgroups,
                                      const RawObject& obj, bool& ok) {
    std::vector<model::HostId> accepted;
    IdMarks& rejected = host_marks_;
    rejected.start(model_->hosts.size());
    if (!hosts.empty()) ok = expand_hosts(hosts, accepted, rejected, obj) && ok;
    if (!hostgroups.empty()) ok = expand_hostgroups(hostgroups, accepted, rejected, obj) && ok;
    std::vector<model::HostId> out;
    for (model::HostId h : accepted) {
      if (rejected.test(model::index(h))) continue;
      rejected.set(model::index(h));  // each host once
      out.push_back(h);
    }
    return out;
  }

  // Services of `host` matching a description list ("*", names, regexes, `!exclusions`).
  std::vector<model::ServiceId> services_on(model::HostId host, std::string_view descriptions,
                                            const RawObject& obj, bool& ok) {
    std::vector<model::ServiceId> accepted;
    std::unordered_set<std::uint32_t> rejected;
    for (std::string_view item : split_list(descriptions)) {
      const bool reject = item.front() == '!';
      if (reject) item.remove_prefix(1);
      bool found = false;
      // "*" (and ".*" when regular expressions are on) matches every service before any regex test, as in
      // Naemon; "*" is no valid regular expression.
      const bool any = item == "*" || (options_.use_regexp_matches && item == ".*");
      const bool regex = !any && wants_regex(item);
      const regex_t* re = regex ? regex_for(item, obj) : nullptr;
      for (model::ServiceId s : model_->hosts[model::index(host)].services) {
        std::string_view desc = model_->services[model::index(s)].description;
        bool hit = any || (regex ? (re != nullptr && matches(re, desc)) : desc == item);
        if (!hit) continue;
        found = true;
        if (reject)
          rejected.insert(model::index(s));
        else
          accepted.push_back(s);
      }
      if (!found && !regex && !any && !reject) {
        diags_.error(fmt::format("Could not find a service matching host name '{}' and description '{}'",
                                 model_->hosts[model::index(host)].name, item),
                     obj.at);
        ok = false;
      }
    }
    std::vector<model::ServiceId> out;
    for (model::ServiceId s : accepted)
      if (rejected.insert(model::index(s)).second) out.push_back(s);
    return out;
  }

  std::vector<model::ServiceId> servicegroup_members(std::string_view groups, const RawObject& obj,
                                                     bool& ok) {
    std::vector<model::ServiceId> out;
    for (std::string_view name : split_list(groups)) {
      auto it = model_->servicegroup_by_name.find(name);
      if (it == model_->servicegroup_by_name.end()) {
        diags_.error(fmt::format("Could not find any servicegroup matching '{}'", name), obj.at);
        ok = false;
        continue;
      }
      for (model::ServiceId s : model_->servicegroups[model::index(it->second)].members) add_unique(out, s);
    }
    return out;
  }

  // Services named by host/hostgroup × description and by servicegroups (dependencies, escalations).
  std::vector<model::ServiceId> service_set(std::string_view hosts, std::string_view hostgroups,
                                            std::string_view servicegroups, std::string_view descriptions,
                                            const RawObject& obj, bool& ok) {
    std::vector<model::ServiceId> out;
    if (!hosts.empty() || !hostgroups.empty()) {
      for (model::HostId h : host_set(hosts, hostgroups, obj, ok))
        for (model::ServiceId s : services_on(h, descriptions, obj, ok)) add_unique(out, s);
    }
    if (!servicegroups.empty())
      for (model::ServiceId s : servicegroup_members(servicegroups, obj, ok)) add_unique(out, s);
    return out;
  }

  template <typename Owner>
  void resolve_contacts(const RawObject& obj, std::string_view contacts, std::string_view groups,
                        std::vector<model::ContactId>& contact_ids,
                        std::vector<model::ContactgroupId>& group_ids, Owner&& owner) {
    for (std::string_view name : split_list(contacts)) {
      auto it = model_->contact_by_name.find(name);
      if (it == model_->contact_by_name.end()) {
        diags_.error(fmt::format("Contact '{}' specified in {} is not defined anywhere!", name, owner()),
                     obj.at);
        continue;
      }
      add_unique(contact_ids, it->second);
    }
    for (std::string_view name : split_list(groups)) {
      auto it = model_->contactgroup_by_name.find(name);
      if (it == model_->contactgroup_by_name.end()) {
        diags_.error(
            fmt::format("Contact group '{}' specified in {} is not defined anywhere!", name, owner()),
            obj.at);
        continue;
      }
      add_unique(group_ids, it->second);
    }
  }

  // Registered definitions of a type that carry a name; others are templates or reported.
  template <typename Fn>
  void for_each_registered(ObjectType type, Fn&& fn) {
    for (RawObject& obj : store_.of(type)) {
      if (!obj.registered) continue;
      fn(obj);
    }
  }

  // Runs fn for each registered definition of `type` and records, for each entry fn appends to `out`, the
  // index of the definition in the store: order_like_naemon() needs it to order escalations and
  // dependencies as Naemon lists them.
  template <typename Entry, typename Fn>
  void expand_each(ObjectType type, const std::vector<Entry>& out, std::vector<std::uint32_t>& defs,
                   Fn&& fn) {
    const std::deque<RawObject>& objs = store_.of(type);
    for (std::uint32_t i = 0; i < objs.size(); ++i) {
      if (!objs[i].registered) continue;
      fn(objs[i]);
      defs.resize(out.size(), i);
    }
  }

  // Adds a named object to its index, reporting duplicates Naemon's way; false when it is a duplicate.
  template <typename Id>
  bool index_name(std::unordered_map<std::string_view, Id>& index, std::vector<const RawObject*>& raws,
                  std::string_view name, const RawObject& obj, std::string_view what) {
    auto [it, inserted] = index.emplace(name, Id{static_cast<std::uint32_t>(raws.size())});
    if (inserted) {
      raws.push_back(&obj);
      return true;
    }
    const RawObject& first = *raws[model::index(it->second)];
    diags_.error(fmt::format("Duplicate definition found for {} '{}'", what, name), obj.at);
    diags_.error(fmt::format("First occurrence in config file '{}', starting on line {}", *first.at.file,
                             first.at.line));
    return false;
  }

  // Reports a registered definition that lacks its name directive (templates with `name` are skipped).
  bool named(const RawObject& obj, DirectiveKey name_key) {
    if (obj.has_value(name_key)) return true;
    if (obj.template_name.empty())
      diags_.error(fmt::format("{} definition has no {}", object_type_name(obj.type), name_key.name), obj.at);
    return false;
  }

  // ---- stages -----------------------------------------------------------------------------------------

  void parse_rules(std::uint32_t index, std::vector<char>& state, std::vector<timeperiod::Rules>& rules) {
    if (state[index] != 0) return;
    state[index] = 1;
    const RawObject& obj = store_.of(ObjectType::timeperiod)[index];
    for (const RawLine& line : obj.timeperiod_lines) {
      std::string error;
      if (!parse_timeperiod_line(line.text, rules[index], error))
        diags_.error(
            fmt::format("Invalid timeperiod directive in timeperiod '{}': {}",
                        obj.get("timeperiod_name").empty() ? obj.template_name : obj.get("timeperiod_name"),
                        error),
            {obj.at.file, line.line}, PosKind::line);
    }
    for (std::uint32_t t : obj.templates) {
      parse_rules(t, state, rules);
      rules[index].inherit_from(rules[t]);
    }
  }

  void build_timeperiods() {
    auto& raws = store_.of(ObjectType::timeperiod);
    std::vector<char> state(raws.size(), 0);
    std::vector<timeperiod::Rules> rules(raws.size());
    std::vector<const RawObject*> index_raws;
    for (std::uint32_t i = 0; i < raws.size(); ++i) {
      const RawObject& obj = raws[i];
      if (!obj.registered || !named(obj, "timeperiod_name")) continue;
      std::string_view name = obj.get("timeperiod_name");
      if (!index_name(model_->timeperiod_by_name, index_raws, intern(name), obj, "timeperiod")) continue;
      check_name(name, "time period", obj);
      if (!obj.has_value("alias")) diags_.error(fmt::format("Timeperiod '{}' has no alias", name), obj.at);
      parse_rules(i, state, rules);
      model::Timeperiod tp;
      tp.name = intern(name);
      tp.alias = intern(obj.get("alias"));
      tp.rules = rules[i];  // copied: a later timeperiod may still use this one as a template
      model_->timeperiods.push_back(std::move(tp));
    }
    for (std::uint32_t i = 0; i < model_->timeperiods.size(); ++i) {
      const RawObject& obj = *index_raws[i];
      for (std::string_view name : split_list(obj.get("exclude"))) {
        model::TimeperiodId id = find_timeperiod(name);
        if (!model::is_set(id)) {
          diags_.error(
              fmt::format("Excluded time period '{}' specified in timeperiod '{}' is not defined anywhere!",
                          name, model_->timeperiods[i].name),
              obj.at);
          continue;
        }
        add_unique(model_->timeperiods[i].exclusions, id);
      }
    }
    timeperiod_raws_ = std::move(index_raws);
  }

  void build_commands() {
    native::ClassifyContext native_ctx;
    native_ctx.enabled = options_.native_checks;
    native_ctx.user_macros = model_->user_macros;
    native_ctx.locale_refusal = native::plugins_locale_refusal();
    std::vector<const RawObject*> raws;
    for_each_registered(ObjectType::command, [&](const RawObject& obj) {
      if (!named(obj, "command_name")) return;
      std::string_view name = intern(obj.get("command_name"));
      if (!index_name(model_->command_by_name, raws, name, obj, "command")) return;
      check_name(name, "command", obj);
      if (!obj.has_value("command_line"))
        diags_.error(fmt::format("Command '{}' has no command_line", name), obj.at);
      model::Command command;
      command.name = name;
      command.compiled = compile_command_line(obj.get("command_line"), model_->strings);
      native::NativeDecision native = native::classify_command(command.compiled, native_ctx);
      command.native = native.plugin;
      command.native_kind = intern(native.kind);
      command.native_reason = intern(native.reason);
      model_->commands.push_back(command);
    });
  }

  void build_contacts() {
    for_each_registered(ObjectType::contact, [&](const RawObject& obj) {
      if (!named(obj, "contact_name")) return;
      std::string_view name = intern(obj.get("contact_name"));
      if (!index_name(model_->contact_by_name, contact_raws_, name, obj, "contact")) return;
      check_name(name, "contact", obj);
      model::Contact c;
      c.name = name;
      c.alias = intern(obj.has_value("alias") ? obj.get("alias") : name);
      c.email = intern(obj.get("email"));
      c.pager = intern(obj.get("pager"));
      for (int i = 0; i < 6; ++i) c.addresses[i] = intern(obj.get_named(fmt::format("address{}", i + 1)));
      auto period = [&](DirectiveKey key, std::string_view label) {
        std::string_view p = obj.get(key);
        if (p.empty()) return model::no_id<model::TimeperiodId>();
        model::TimeperiodId id = find_timeperiod(p);
        if (!model::is_set(id))
          diags_.error(
              fmt::format("{} notification period '{}' specified for contact '{}' is not defined anywhere!",
                          label, p, name),
              obj.at);
        return id;
      };
      c.host_notification_period = period("host_notification_period", "Host");
      c.service_notification_period = period("service_notification_period", "Service");
      for (std::string_view cmd : split_list(obj.get("host_notification_commands")))
        c.host_notification_commands.push_back(make_call(cmd, obj, [&](std::string_view n) {
          return fmt::format(
              "Host notification command '{}' specified for contact '{}' is not defined anywhere!", n, name);
        }));
      for (std::string_view cmd : split_list(obj.get("service_notification_commands")))
        c.service_notification_commands.push_back(make_call(cmd, obj, [&](std::string_view n) {
          return fmt::format(
              "Service notification command '{}' specified for contact '{}' is not defined anywhere!", n,
              name);
        }));
      c.host_notification_options =
          options_attr(obj, "host_notification_options", k_host_notification_options, model::k_opt_nothing);
      c.service_notification_options = options_attr(obj, "service_notification_options",
                                                    k_service_notification_options, model::k_opt_nothing);
      c.host_notifications_enabled = bool_attr(obj, "host_notifications_enabled", true);
      c.service_notifications_enabled = bool_attr(obj, "service_notifications_enabled", true);
      c.can_submit_commands = bool_attr(obj, "can_submit_commands", true);
      c.retain_status_information = bool_attr(obj, "retain_status_information", true);
      c.retain_nonstatus_information = bool_attr(obj, "retain_nonstatus_information", true);
      c.minimum_value = int_attr(obj, "minimum_value", 1);
      c.custom_variables = custom_variables(obj);
      model_->contacts.push_back(std::move(c));
    });
  }

  void build_contactgroups() {
    std::vector<const RawObject*>& raws = contactgroup_raws_;
    for_each_registered(ObjectType::contactgroup, [&](const RawObject& obj) {
      if (!named(obj, "contactgroup_name")) return;
      std::string_view name = intern(obj.get("contactgroup_name"));
      if (!index_name(model_->contactgroup_by_name, raws, name, obj, "contactgroup")) return;
      check_name(name, "contact group", obj);
      model::Contactgroup g;
      g.name = name;
      g.alias = intern(obj.has_value("alias") ? obj.get("alias") : name);
      model_->contactgroups.push_back(std::move(g));
    });
    // `members`: names, "*", regular expressions (with use_regexp_matching) and `!contact` exclusions, as
    // Naemon expands them.
    std::vector<char> rejected(model_->contacts.size());
    for (std::uint32_t g = 0; g < raws.size(); ++g) {
      const RawObject& obj = *raws[g];
      std::vector<model::ContactId> accepted;
      std::fill(rejected.begin(), rejected.end(), 0);
      for (std::string_view item : split_list(obj.get("members"))) {
        const bool reject = item.front() == '!';
        if (reject) item.remove_prefix(1);
        bool found = false;
        auto take = [&](std::uint32_t c) {
          found = true;
          if (reject)
            rejected[c] = 1;
          else
            accepted.push_back(model::ContactId{c});
        };
        if (wants_regex(item)) {
          if (const regex_t* re = regex_for(item, obj))
            for (std::uint32_t c = 0; c < model_->contacts.size(); ++c)
              if (matches(re, model_->contacts[c].name)) take(c);
          found = true;
        } else if (item == "*") {
          for (std::uint32_t c = 0; c < model_->contacts.size(); ++c) take(c);
          found = true;
        } else if (auto it = model_->contact_by_name.find(item); it != model_->contact_by_name.end()) {
          take(model::index(it->second));
        }
        if (!found) diags_.error(fmt::format("Could not find any contact matching '{}'", item), obj.at);
      }
      for (model::ContactId c : accepted)
        if (rejected[model::index(c)] == 0) model_->contactgroups[g].members.push_back(c);
    }
    // A contact's own contactgroups directive.
    for (std::uint32_t c = 0; c < contact_raws_.size(); ++c) {
      const RawObject& obj = *contact_raws_[c];
      for (std::string_view name : split_list(obj.get("contact_groups"))) {
        auto it = model_->contactgroup_by_name.find(name);
        if (it == model_->contactgroup_by_name.end()) {
          diags_.error(fmt::format("Could not find contactgroup '{}' specified in contact '{}' definition",
                                   name, model_->contacts[c].name),
                       obj.at);
          continue;
        }
        model_->contactgroups[model::index(it->second)].members.push_back(model::ContactId{c});
      }
    }
    expand_subgroups<model::ContactgroupId>(raws, "contactgroup_members", model_->contactgroups,
                                            model_->contactgroup_by_name, "contactgroup");
    for (std::uint32_t g = 0; g < model_->contactgroups.size(); ++g) {
      for (model::ContactId c : model_->contactgroups[g].members)
        add_unique(model_->contacts[model::index(c)].contactgroups, model::ContactgroupId{g});
    }
  }

  // `*group_members`: a group contains the members of its subgroups, recursively. Each group is expanded
  // once, after the groups it includes (a depth-first walk), and made sorted and unique there, so a chain of
  // n groups costs what their members do: appending already expanded lists again doubled them per level.
  // A group that includes itself, directly or through others, is an error, as in Naemon.
  template <typename GroupId, typename Group, typename Index>
  void expand_subgroups(const std::vector<const RawObject*>& raws, DirectiveKey key,
                        std::vector<Group>& groups, const Index& by_name, std::string_view what) {
    std::vector<std::vector<std::uint32_t>> subgroups(groups.size());
    for (std::uint32_t g = 0; g < raws.size(); ++g) {
      for (std::string_view name : split_list(raws[g]->get(key))) {
        auto it = by_name.find(name);
        if (it == by_name.end()) {
          diags_.error(fmt::format("Could not find member group '{}' specified in {} '{}'", name, what,
                                   groups[g].name),
                       raws[g]->at);
          continue;
        }
        subgroups[g].push_back(model::index(it->second));
      }
    }
    enum class Walk : std::uint8_t { fresh, open, done };
    std::vector<Walk> walk(groups.size(), Walk::fresh);
    struct Frame {
      std::uint32_t group;
      std::size_t next_sub;
    };
    std::vector<Frame> stack;
    auto take_members = [&](std::uint32_t into, std::uint32_t from) {
      auto& members = groups[into].members;
      members.insert(members.end(), groups[from].members.begin(), groups[from].members.end());
    };
    for (std::uint32_t root = 0; root < groups.size(); ++root) {
      if (walk[root] != Walk::fresh) continue;
      walk[root] = Walk::open;
      stack.push_back({root, 0});
      while (!stack.empty()) {
        const std::uint32_t g = stack.back().group;
        if (stack.back().next_sub < subgroups[g].size()) {
          const std::uint32_t sub = subgroups[g][stack.back().next_sub++];
          if (walk[sub] == Walk::fresh) {
            walk[sub] = Walk::open;
            stack.push_back({sub, 0});
          } else if (walk[sub] == Walk::open) {
            diags_.error(fmt::format("{}s '{}' and '{}' are part of a {} include loop", what, groups[g].name,
                                     groups[sub].name, key.name),
                         raws[g]->at);
          } else {
            take_members(g, sub);
          }
          continue;
        }
        sort_unique(groups[g].members);
        walk[g] = Walk::done;
        stack.pop_back();
        if (!stack.empty()) take_members(stack.back().group, g);
      }
    }
  }

  // The option letters of hosts and of services.
  struct OptionTables {
    const OptionTable& flap_detection;
    const OptionTable& notification;
    const OptionTable& stalking;
  };
  static constexpr OptionTables k_host_tables{k_host_state_options, k_host_notification_options,
                                              k_host_stalking_options};
  static constexpr OptionTables k_service_tables{k_service_state_options, k_service_notification_options,
                                                 k_service_stalking_options};

  // The directives hosts and services read the same way, with Naemon's defaults.
  void checkable_values(const RawObject& obj, const OptionTables& tables, model::Checkable& c) {
    c.notes = intern(obj.get("notes"));
    c.notes_url = intern(obj.get("notes_url"));
    c.action_url = intern(obj.get("action_url"));
    c.icon_image = intern(obj.get("icon_image"));
    c.icon_image_alt = intern(obj.get("icon_image_alt"));
    c.check_interval = number_attr(obj, "check_interval", 5.0);
    c.retry_interval = number_attr(obj, "retry_interval", 1.0);
    c.max_check_attempts = int_attr(obj, "max_check_attempts", -2);
    c.hourly_value = int_attr(obj, "hourly_value", 1);
    c.freshness_threshold = number_attr(obj, "freshness_threshold", 0);
    c.low_flap_threshold = number_attr(obj, "low_flap_threshold", 0);
    c.high_flap_threshold = number_attr(obj, "high_flap_threshold", 0);
    c.notification_interval = number_attr(obj, "notification_interval", 30.0);
    c.first_notification_delay = number_attr(obj, "first_notification_delay", 0);
    c.flap_detection_options =
        options_attr(obj, "flap_detection_options", tables.flap_detection, model::k_opt_all);
    c.notification_options = options_attr(obj, "notification_options", tables.notification, model::k_opt_all);
    c.stalking_options = options_attr(obj, "stalking_options", tables.stalking, model::k_opt_nothing);
    c.active_checks_enabled = bool_attr(obj, "active_checks_enabled", true);
    c.passive_checks_enabled = bool_attr(obj, "passive_checks_enabled", true);
    c.obsess = bool_attr(obj, "obsess", true);
    c.event_handler_enabled = bool_attr(obj, "event_handler_enabled", true);
    c.check_freshness = bool_attr(obj, "check_freshness", false);
    c.flap_detection_enabled = bool_attr(obj, "flap_detection_enabled", true);
    c.notifications_enabled = bool_attr(obj, "notifications_enabled", true);
    c.process_perf_data = bool_attr(obj, "process_perf_data", true);
    c.retain_status_information = bool_attr(obj, "retain_status_information", true);
    c.retain_nonstatus_information = bool_attr(obj, "retain_nonstatus_information", true);
  }

  void build_hosts() {
    model_->hosts.reserve(store_.of(ObjectType::host).size());
    for_each_registered(ObjectType::host, [&](const RawObject& obj) {
      if (!named(obj, "host_name")) return;
      std::string_view name = intern(obj.get("host_name"));
      if (!index_name(model_->host_by_name, host_raws_, name, obj, "host")) return;
      check_name(name, "host", obj);
      model::Host h;
      h.name = name;
      h.display_name_set = obj.has_value("display_name");
      h.display_name = h.display_name_set ? intern(obj.get("display_name")) : name;
      h.alias = intern(obj.has_value("alias") ? obj.get("alias") : name);
      h.address = intern(obj.has_value("address") ? obj.get("address") : name);
      h.check_command = make_call(obj.get("check_command"), obj, [&](std::string_view n) {
        return fmt::format("Host check command '{}' specified for host '{}' is not defined anywhere!", n,
                           name);
      });
      h.event_handler = make_call(obj.get("event_handler"), obj, [&](std::string_view n) {
        return fmt::format("Event handler command '{}' specified for host '{}' not defined anywhere", n,
                           name);
      });
      h.check_period = period_attr(obj, "check_period", [&](std::string_view n) {
        return fmt::format("Failed to locate check_period '{}' for host '{}'!", n, name);
      });
      h.notification_period = period_attr(obj, "notification_period", [&](std::string_view n) {
        return fmt::format("Failed to locate notification_period '{}' for host '{}'!", n, name);
      });
      h.vrml_image = intern(obj.get("vrml_image"));
      h.statusmap_image = intern(obj.get("statusmap_image"));
      h.initial_state = initial_state(obj, true);
      h.check_timeout = int_attr(obj, "check_timeout", options_.host_check_timeout);
      checkable_values(obj, k_host_tables, h);
      coords(obj, h);
      h.custom_variables = custom_variables(obj);
      check_host_values(h, obj);
      model_->hosts.push_back(std::move(h));
    });
    for (std::uint32_t i = 0; i < model_->hosts.size(); ++i) {
      const RawObject& obj = *host_raws_[i];
      model::Host& h = model_->hosts[i];
      resolve_contacts(obj, obj.get("contacts"), obj.get("contact_groups"), h.contacts, h.contact_groups,
                       [&] { return fmt::format("host '{}'", h.name); });
      for (std::string_view parent : split_list(obj.get("parents"))) {
        auto it = model_->host_by_name.find(parent);
        if (it == model_->host_by_name.end()) {
          diags_.error(fmt::format("Could not find parent host '{}' for host '{}'", parent, h.name), obj.at);
          continue;
        }
        if (model::index(it->second) == i) {
          diags_.error(fmt::format("Host '{}' cannot be a child/parent of itself", h.name), obj.at);
          continue;
        }
        add_unique(h.parents, it->second);
        add_unique(model_->hosts[model::index(it->second)].children, model::HostId{i});
      }
    }
  }

  int initial_state(const RawObject& obj, bool host) {
    std::string_view v = obj.get("initial_state");
    if (v.empty()) return 0;
    if (host) {
      if (v == "o" || v == "up") return 0;
      if (v == "d" || v == "down") return 1;
      if (v == "u" || v == "unreachable") return 2;
    } else {
      if (v == "o" || v == "ok") return 0;
      if (v == "w" || v == "warning") return 1;
      if (v == "c" || v == "critical") return 2;
      if (v == "u" || v == "unknown") return 3;
    }
    diags_.error(fmt::format("Invalid initial state '{}' in {} definition", v, object_type_name(obj.type)),
                 obj.at);
    return 0;
  }

  void coords(const RawObject& obj, model::Host& h) {
    if (obj.has_value("2d_coords")) {
      if (std::sscanf(std::string(obj.get("2d_coords")).c_str(), "%d , %d", &h.x_2d, &h.y_2d) == 2)
        h.have_2d_coords = true;
      else
        diags_.error(fmt::format("Invalid 2d_coords value '{}' in host definition.", obj.get("2d_coords")),
                     obj.at);
    }
    if (obj.has_value("3d_coords")) {
      if (std::sscanf(std::string(obj.get("3d_coords")).c_str(), "%lf , %lf , %lf", &h.x_3d, &h.y_3d,
                      &h.z_3d) == 3)
        h.have_3d_coords = true;
      else
        diags_.error(fmt::format("Invalid 3d_coords value '{}' in host definition.", obj.get("3d_coords")),
                     obj.at);
    }
  }

  template <typename Missing>
  model::TimeperiodId period_attr(const RawObject& obj, DirectiveKey key, Missing&& missing) {
    std::string_view p = obj.get(key);
    if (p.empty()) return model::no_id<model::TimeperiodId>();
    model::TimeperiodId id = find_timeperiod(p);
    if (!model::is_set(id)) diags_.error(missing(p), obj.at);
    return id;
  }

  void check_host_values(const model::Host& h, const RawObject& obj) {
    if (h.max_check_attempts <= 0)
      diags_.error(fmt::format("max_check_attempts must be a positive integer host '{}'", h.name), obj.at);
    if (h.check_interval < 0)
      diags_.error(fmt::format("Invalid check_interval value for host '{}'", h.name), obj.at);
    if (h.check_timeout <= 0)
      diags_.error(fmt::format("check_timeout must be a positive integer host '{}'", h.name), obj.at);
    if (h.notification_interval < 0)
      diags_.error(fmt::format("Invalid notification_interval value for host '{}'", h.name), obj.at);
    if (h.first_notification_delay < 0)
      diags_.error(fmt::format("Invalid first_notification_delay value for host '{}'", h.name), obj.at);
    if (h.freshness_threshold < 0)
      diags_.error(fmt::format("Invalid freshness_threshold value for host '{}'", h.name), obj.at);
  }

  // Host and service groups share their descriptive fields; members are each type's own business.
  template <typename Group, typename Id>
  std::vector<const RawObject*> register_groups(ObjectType type, DirectiveKey name_key,
                                                std::unordered_map<std::string_view, Id>& by_name,
                                                std::vector<Group>& groups, std::string_view what) {
    std::vector<const RawObject*> raws;
    for_each_registered(type, [&](const RawObject& obj) {
      if (!named(obj, name_key)) return;
      std::string_view name = intern(obj.get(name_key));
      if (!index_name(by_name, raws, name, obj, what)) return;
      check_name(name, what, obj);
      Group g;
      g.name = name;
      g.alias = intern(obj.has_value("alias") ? obj.get("alias") : name);
      g.notes = intern(obj.get("notes"));
      g.notes_url = intern(obj.get("notes_url"));
      g.action_url = intern(obj.get("action_url"));
      groups.push_back(std::move(g));
    });
    return raws;
  }

  void build_hostgroups() {
    hostgroup_raws_ = register_groups(ObjectType::hostgroup, "hostgroup_name", model_->hostgroup_by_name,
                                      model_->hostgroups, "hostgroup");
    const std::vector<const RawObject*>& raws = hostgroup_raws_;
    for (std::uint32_t g = 0; g < raws.size(); ++g) {
      const RawObject& obj = *raws[g];
      if (!obj.has_value("members")) continue;
      std::vector<model::HostId> accepted;
      host_marks_.start(model_->hosts.size());
      if (!expand_hosts(obj.get("members"), accepted, host_marks_, obj)) continue;
      for (model::HostId h : accepted)
        if (!host_marks_.test(model::index(h))) model_->hostgroups[g].members.push_back(h);
    }
    for (std::uint32_t h = 0; h < host_raws_.size(); ++h) {
      const RawObject& obj = *host_raws_[h];
      // "grp1,grp2,!grp2" in a host's hostgroups means grp1 only.
      const std::vector<std::string_view> excluded = split_excludes(obj.get("hostgroups"));
      for (std::string_view name : split_list(obj.get("hostgroups"))) {
        if (name.front() == '!') continue;
        if (std::find(excluded.begin(), excluded.end(), name) != excluded.end()) continue;
        auto it = model_->hostgroup_by_name.find(name);
        if (it == model_->hostgroup_by_name.end()) {
          diags_.error(fmt::format("Could not find hostgroup '{}' specified in host '{}' definition", name,
                                   model_->hosts[h].name),
                       obj.at);
          continue;
        }
        model_->hostgroups[model::index(it->second)].members.push_back(model::HostId{h});
      }
    }
    expand_subgroups<model::HostgroupId>(raws, "hostgroup_members", model_->hostgroups,
                                         model_->hostgroup_by_name, "hostgroup");
    for (std::uint32_t g = 0; g < model_->hostgroups.size(); ++g) {
      for (model::HostId h : model_->hostgroups[g].members)
        add_unique(model_->hosts[model::index(h)].hostgroups, model::HostgroupId{g});
    }
  }

  static std::vector<std::string_view> split_excludes(std::string_view list) {
    std::vector<std::string_view> out;
    for (std::string_view item : split_list(list))
      if (item.front() == '!') out.push_back(item.substr(1));
    return out;
  }

  void merge_hostextinfo() {
    for_each_registered(ObjectType::hostextinfo, [&](const RawObject& obj) {
      bool ok = true;
      for (model::HostId id : host_set(obj.get("host_name"), obj.get("hostgroup_name"), obj, ok)) {
        model::Host& h = model_->hosts[model::index(id)];
        auto fill = [&](std::string_view& field, DirectiveKey key) {
          if (field.empty() && obj.has_value(key)) field = intern(obj.get(key));
        };
        fill(h.notes, "notes");
        fill(h.notes_url, "notes_url");
        fill(h.action_url, "action_url");
        fill(h.icon_image, "icon_image");
        fill(h.icon_image_alt, "icon_image_alt");
        fill(h.vrml_image, "vrml_image");
        fill(h.statusmap_image, "statusmap_image");
        if (!h.have_2d_coords && !h.have_3d_coords) coords(obj, h);
      }
    });
  }

  // One service definition applied to one host.
  struct ServiceInstance {
    const RawObject* raw;
    std::string_view description;
    model::HostId host;
    bool from_hostgroup;
  };

  void build_services() {
    std::vector<ServiceInstance> instances;
    std::vector<std::vector<std::uint32_t>> on_host(model_->hosts.size());  // instances per host
    std::vector<model::HostId> direct;
    std::vector<model::HostId> grouped;
    for_each_registered(ObjectType::service, [&](const RawObject& obj) {
      std::string_view hosts = obj.get("host_name");
      std::string_view groups = obj.get("hostgroup_name");
      if ((hosts.empty() && groups.empty()) || !obj.has_value("service_description")) {
        if (!obj.template_name.empty()) return;
        diags_.error("Service has no hosts and/or service_description", obj.at);
        return;
      }
      direct.clear();
      grouped.clear();
      IdMarks& rejected = host_marks_;
      rejected.start(model_->hosts.size());
      bool ok = true;
      if (!groups.empty()) {
        ok = expand_hostgroups(groups, grouped, rejected, obj) && ok;
        if (ok && grouped.empty() && hosts.empty()) {
          if (options_.allow_empty_hostgroup_assignment == 0)
            diags_.error("Could not expand hostgroups and/or hosts specified in service", obj.at);
          else if (options_.allow_empty_hostgroup_assignment == 2)
            diags_.warning("Could not expand hostgroups and/or hosts specified in service", obj.at);
        }
      }
      if (!hosts.empty()) ok = expand_hosts(hosts, direct, rejected, obj) && ok;
      if (!ok) return;
      std::string_view desc = obj.get("service_description");
      auto add = [&](model::HostId h, bool from_group) {
        if (rejected.test(model::index(h))) return;
        rejected.set(model::index(h));
        std::vector<std::uint32_t>& mine = on_host[model::index(h)];
        auto same = std::find_if(mine.begin(), mine.end(),
                                 [&](std::uint32_t i) { return instances[i].description == desc; });
        if (same == mine.end()) {
          mine.push_back(static_cast<std::uint32_t>(instances.size()));
          instances.push_back({&obj, desc, h, from_group});
          return;
        }
        ServiceInstance& prev = instances[*same];
        // A service on the host itself overrides one from a hostgroup; two of the same kind are a warning
        // and the first one stays, as in Naemon. The definition that lost still puts the service into its
        // `servicegroups` (Naemon keeps it in the list it takes those from).
        if (prev.from_hostgroup && !from_group) {
          lost_servicegroups_.push_back({*same, prev.raw});
          prev = {&obj, desc, h, from_group};
        } else if (prev.from_hostgroup == from_group) {
          lost_servicegroups_.push_back({*same, &obj});
          diags_.warning(fmt::format("Duplicate definition found for service '{}' on host '{}'", desc,
                                     model_->hosts[model::index(h)].name),
                         obj.at);
          diags_.warning(fmt::format("Already defined in config file '{}', starting on line {}",
                                     *prev.raw->at.file, prev.raw->at.line));
        }
      };
      for (model::HostId h : direct) add(h, false);
      for (model::HostId h : grouped) add(h, true);
    });
    // Reserved up front: growing a vector of 100k services by doubling moved 100 MB and doubled the peak.
    model_->services.reserve(instances.size());
    service_raws_.reserve(instances.size());
    for (const ServiceInstance& inst : instances) build_service(inst);
    for (std::uint32_t s = 0; s < model_->services.size(); ++s) resolve_service_parents(s);
  }

  // The service's value for `key`, else its host's (Naemon's implied inheritance).
  const RawAttr* service_or_host(const RawObject& svc, const RawObject& host, DirectiveKey key) {
    if (const RawAttr* a = svc.find(key)) return a;
    return host.find(key);
  }

  void build_service(const ServiceInstance& inst) {
    const RawObject& obj = *inst.raw;
    const RawObject& host_obj = *host_raws_[model::index(inst.host)];
    model::Host& host = model_->hosts[model::index(inst.host)];
    model::Service s;
    s.host = inst.host;
    s.host_name = host.name;
    s.description = intern(obj.get("service_description"));
    auto who = [&] { return fmt::format("service '{}' on host '{}'", s.description, s.host_name); };
    check_description(s, obj);
    s.display_name_set = obj.has_value("display_name");
    s.display_name = s.display_name_set ? intern(obj.get("display_name")) : s.description;
    if (!obj.has_value("check_command"))
      diags_.error(fmt::format("No check command provided for {}", who()), obj.at);
    s.check_command = make_call(obj.get("check_command"), obj, [&](std::string_view n) {
      return fmt::format(
          "Service check command '{}' specified in service '{}' for host '{}' not defined anywhere!", n,
          s.description, host.name);
    });
    s.event_handler = make_call(obj.get("event_handler"), obj, [&](std::string_view n) {
      return fmt::format(
          "Event handler command '{}' specified in service '{}' for host '{}' not defined anywhere", n,
          s.description, host.name);
    });
    auto inherited_period = [&](DirectiveKey key, auto&& missing) {
      const RawAttr* a = service_or_host(obj, host_obj, key);
      if (a == nullptr || a->is_null || a->value.empty()) return model::no_id<model::TimeperiodId>();
      model::TimeperiodId id = find_timeperiod(a->value);
      if (!model::is_set(id)) diags_.error(missing(a->value), obj.at);
      return id;
    };
    s.check_period = inherited_period("check_period", [&](std::string_view n) {
      return fmt::format("check_period '{}' for service '{}' on host '{}' not found!", n, s.description,
                         host.name);
    });
    s.notification_period = inherited_period("notification_period", [&](std::string_view n) {
      return fmt::format("notification_period '{}' for service '{}' on host '{}' could not be found!", n,
                         s.description, host.name);
    });
    s.initial_state = initial_state(obj, false);
    s.check_timeout = int_attr(obj, "check_timeout", options_.service_check_timeout);
    checkable_values(obj, k_service_tables, s);
    // Implied inheritance: a service without its own notification_interval takes its host's.
    if (obj.find("notification_interval") == nullptr)
      s.notification_interval = number_attr(host_obj, "notification_interval", 30.0);
    s.is_volatile = bool_attr(obj, "is_volatile", false);
    s.custom_variables = custom_variables(obj);
    // Contacts come from the host only when the service names neither contacts nor contact groups.
    const RawObject& contact_source =
        obj.find("contacts") == nullptr && obj.find("contact_groups") == nullptr ? host_obj : obj;
    resolve_contacts(obj, contact_source.get("contacts"), contact_source.get("contact_groups"), s.contacts,
                     s.contact_groups, who);
    if (s.max_check_attempts <= 0)
      diags_.error(fmt::format("max_check_attempts must be a positive integer for {}", who()), obj.at);
    if (s.check_interval < 0)
      diags_.error(fmt::format("check_interval must be a non-negative integer for {}", who()), obj.at);
    if (s.check_timeout <= 0)
      diags_.error(fmt::format("check_timeout must be a positive integer for {}", who()), obj.at);
    if (s.retry_interval <= 0)
      diags_.error(fmt::format("retry_interval must be a positive integer for {}", who()), obj.at);
    if (s.notification_interval < 0)
      diags_.error(fmt::format("notification_interval must be a non-negative integer for {}", who()), obj.at);
    if (s.first_notification_delay < 0)
      diags_.error(fmt::format("first_notification_delay must be a non-negative integer for {}", who()),
                   obj.at);
    const auto id = model::ServiceId{static_cast<std::uint32_t>(model_->services.size())};
    host.services.push_back(id);
    service_raws_.push_back(&obj);
    model_->services.push_back(std::move(s));
  }

  void resolve_service_parents(std::uint32_t s) {
    const RawObject& obj = *service_raws_[s];
    std::string_view parents = obj.get("parents");
    if (parents.empty()) return;
    const model::HostId host = model_->services[s].host;
    std::vector<model::ServiceId> found;
    bool ok = true;
    if (parents.find(',') == std::string_view::npos) {
      model::ServiceId p = model_->find_service(model_->hosts[model::index(host)].name, trim(parents));
      if (!model::is_set(p)) {
        diags_.error(fmt::format("Could not add same-host service parent '{}' to service", trim(parents)),
                     obj.at);
        return;
      }
      found.push_back(p);
    } else {
      std::vector<std::string_view> items = split_list_vector(parents);
      if (items.size() % 2 != 0) {
        diags_.error(fmt::format("Service parents '{}' must be host,service pairs", parents), obj.at);
        return;
      }
      for (std::size_t i = 0; i < items.size(); i += 2) {
        std::vector<model::HostId> hosts;
        IdMarks& rejected = host_marks_;
        rejected.start(model_->hosts.size());
        if (!expand_hosts(items[i], hosts, rejected, obj)) continue;
        for (model::HostId h : hosts)
          for (model::ServiceId p : services_on(h, items[i + 1], obj, ok)) add_unique(found, p);
      }
    }
    for (model::ServiceId p : found) {
      if (model::index(p) == s) {
        diags_.error(fmt::format("Service '{}' on host '{}' cannot be a parent of itself",
                                 model_->services[s].description, model_->services[s].host_name),
                     obj.at);
        continue;
      }
      add_unique(model_->services[s].parents, p);
      add_unique(model_->services[model::index(p)].children, model::ServiceId{s});
    }
  }

  void merge_serviceextinfo() {
    for_each_registered(ObjectType::serviceextinfo, [&](const RawObject& obj) {
      bool ok = true;
      for (model::HostId id : host_set(obj.get("host_name"), obj.get("hostgroup_name"), obj, ok)) {
        model::ServiceId sid =
            model_->find_service(model_->hosts[model::index(id)].name, obj.get("service_description"));
        if (!model::is_set(sid)) continue;
        model::Service& s = model_->services[model::index(sid)];
        auto fill = [&](std::string_view& field, DirectiveKey key) {
          if (field.empty() && obj.has_value(key)) field = intern(obj.get(key));
        };
        fill(s.notes, "notes");
        fill(s.notes_url, "notes_url");
        fill(s.action_url, "action_url");
        fill(s.icon_image, "icon_image");
        fill(s.icon_image_alt, "icon_image_alt");
      }
    });
  }

  void build_servicegroups() {
    servicegroup_raws_ = register_groups(ObjectType::servicegroup, "servicegroup_name",
                                         model_->servicegroup_by_name, model_->servicegroups, "servicegroup");
    const std::vector<const RawObject*>& raws = servicegroup_raws_;
    for (std::uint32_t g = 0; g < raws.size(); ++g) {
      const RawObject& obj = *raws[g];
      std::vector<std::string_view> items = split_list_vector(obj.get("members"));
      if (items.size() % 2 != 0) {
        diags_.error(fmt::format("Servicegroup '{}' members must be host,service pairs",
                                 model_->servicegroups[g].name),
                     obj.at);
        continue;
      }
      bool ok = true;
      for (std::size_t i = 0; i < items.size(); i += 2) {
        std::vector<model::HostId> hosts;
        IdMarks& rejected = host_marks_;
        rejected.start(model_->hosts.size());
        if (!expand_hosts(items[i], hosts, rejected, obj)) continue;
        for (model::HostId h : hosts)
          for (model::ServiceId s : services_on(h, items[i + 1], obj, ok))
            model_->servicegroups[g].members.push_back(s);
      }
    }
    // Every definition of the service, the ones that lost to another included (build_services).
    std::vector<std::pair<std::uint32_t, const RawObject*>> definitions;
    definitions.reserve(service_raws_.size() + lost_servicegroups_.size());
    for (std::uint32_t s = 0; s < service_raws_.size(); ++s) definitions.push_back({s, service_raws_[s]});
    definitions.insert(definitions.end(), lost_servicegroups_.begin(), lost_servicegroups_.end());
    for (const auto& [s, raw] : definitions) {
      const RawObject& obj = *raw;
      for (std::string_view name : split_list(obj.get("servicegroups"))) {
        auto it = model_->servicegroup_by_name.find(name);
        if (it == model_->servicegroup_by_name.end()) {
          diags_.error(
              fmt::format(
                  "Could not find servicegroup '{}' specified in service '{}' on host '{}' definition", name,
                  model_->services[s].description, model_->services[s].host_name),
              obj.at);
          continue;
        }
        model_->servicegroups[model::index(it->second)].members.push_back(model::ServiceId{s});
      }
    }
    expand_subgroups<model::ServicegroupId>(raws, "servicegroup_members", model_->servicegroups,
                                            model_->servicegroup_by_name, "servicegroup");
    for (std::uint32_t g = 0; g < model_->servicegroups.size(); ++g) {
      for (model::ServiceId s : model_->servicegroups[g].members)
        add_unique(model_->services[model::index(s)].servicegroups, model::ServicegroupId{g});
    }
  }

  template <typename Dep, typename Id>
  void add_dependencies(std::vector<Dep>& out, const RawObject& obj, Id master, Id dependent,
                        const OptionTable& table) {
    model::TimeperiodId period = model::no_id<model::TimeperiodId>();
    if (obj.has_value("dependency_period")) {
      period = find_timeperiod(obj.get("dependency_period"));
      if (!model::is_set(period))
        diags_.error(fmt::format("Unable to locate dependency_period '{}'", obj.get("dependency_period")),
                     obj.at);
    }
    const bool inherits = bool_attr(obj, "inherits_parent", false);
    if (obj.find("execution_failure_criteria") != nullptr)
      out.push_back({model::DependencyKind::execution, master, dependent, period,
                     options_attr(obj, "execution_failure_criteria", table, model::k_opt_nothing), inherits});
    if (obj.find("notification_failure_criteria") != nullptr)
      out.push_back({model::DependencyKind::notification, master, dependent, period,
                     options_attr(obj, "notification_failure_criteria", table, model::k_opt_nothing),
                     inherits});
  }

  void build_host_dependencies() {
    expand_each(
        ObjectType::hostdependency, model_->host_dependencies, host_dependency_defs_,
        [&](const RawObject& obj) {
          std::string_view masters = obj.get("host_name"), master_groups = obj.get("hostgroup_name");
          std::string_view dependents = obj.get("dependent_host_name"),
                           dependent_groups = obj.get("dependent_hostgroup_name");
          if (masters.empty() && master_groups.empty() && dependents.empty() && dependent_groups.empty()) {
            if (obj.template_name.empty()) diags_.error("Host dependency has no hosts", obj.at);
            return;
          }
          bool ok = true;
          auto master_set = host_set(masters, master_groups, obj, ok);
          auto dependent_set = host_set(dependents, dependent_groups, obj, ok);
          if (!ok) return;
          if (master_set.empty() || dependent_set.empty()) {
            diags_.error("Could not expand master and/or dependent hosts in host dependency", obj.at);
            return;
          }
          for (model::HostId m : master_set)
            for (model::HostId d : dependent_set)
              add_dependencies(model_->host_dependencies, obj, m, d, k_host_dependency_options);
        });
  }

  void build_service_dependencies() {
    expand_each(
        ObjectType::servicedependency, model_->service_dependencies, service_dependency_defs_,
        [&](const RawObject& obj) {
          std::string_view mh = obj.get("host_name"), mhg = obj.get("hostgroup_name"),
                           msg = obj.get("servicegroup_name"), md = obj.get("service_description");
          std::string_view dh = obj.get("dependent_host_name"), dhg = obj.get("dependent_hostgroup_name"),
                           dsg = obj.get("dependent_servicegroup_name"),
                           dd = obj.get("dependent_service_description");
          if (mh.empty() && mhg.empty() && msg.empty() && dh.empty() && dhg.empty() && dsg.empty()) {
            if (obj.template_name.empty())
              diags_.error("Service dependency has no hosts or services", obj.at);
            return;
          }
          bool ok = true;
          const bool master_by_description_only = mh.empty() && mhg.empty() && msg.empty();
          const bool same_host = dh.empty() && dhg.empty() && dsg.empty();
          if ((master_by_description_only && same_host) || (same_host && dd.empty())) {
            diags_.error("Impossible service dependency definition", obj.at);
            return;
          }
          if (master_by_description_only) {
            // The master is named by description only: it lives on each dependent service's host.
            for (model::ServiceId d : service_set(dh, dhg, dsg, dd, obj, ok))
              for (model::ServiceId m : services_on(model_->services[model::index(d)].host, md, obj, ok))
                add_dependencies(model_->service_dependencies, obj, m, d, k_service_dependency_options);
            return;
          }
          std::vector<model::ServiceId> masters = service_set(mh, mhg, msg, md, obj, ok);
          std::vector<model::ServiceId> dependents;
          if (!same_host) dependents = service_set(dh, dhg, dsg, dd, obj, ok);
          if (!ok) return;
          for (model::ServiceId m : masters) {
            if (same_host) dependents = services_on(model_->services[model::index(m)].host, dd, obj, ok);
            for (model::ServiceId d : dependents)
              add_dependencies(model_->service_dependencies, obj, m, d, k_service_dependency_options);
          }
        });
  }

  // Escalation contacts: `+list` adds to the object's own; none at all means the object's. A service's own
  // are its host's when it names neither contacts nor contact groups (`contacts_from`, as in build_service):
  // Naemon applies that inheritance to the service before the escalation inherits from it.
  void escalation_contacts(const RawObject& esc, const RawObject& contacts_from, model::EscalationRule& rule,
                           const std::string& owner) {
    const RawAttr* contacts = esc.find("contacts");
    const RawAttr* groups = esc.find("contact_groups");
    auto merged = [&](const RawAttr* own, DirectiveKey key) -> std::string {
      if (own == nullptr || own->is_null)
        return std::string(own == nullptr ? std::string_view{} : own->value);
      if (!own->value.starts_with('+')) return std::string(own->value);
      std::string_view inherited = contacts_from.get(key);
      if (inherited.empty()) return std::string(own->value.substr(1));
      return fmt::format("{},{}", inherited, own->value.substr(1));
    };
    std::string c, g;
    if (contacts == nullptr && groups == nullptr) {
      c = contacts_from.get("contacts");
      g = contacts_from.get("contact_groups");
    } else {
      c = merged(contacts, "contacts");
      g = merged(groups, "contact_groups");
    }
    resolve_contacts(esc, c, g, rule.contacts, rule.contact_groups, [&] { return owner; });
  }

  // `target` is the escalated host or service; for a service, `host` is its host, whose notification
  // interval, period and contacts the service takes when it has none of its own (implied inheritance).
  model::EscalationRule escalation_rule(const RawObject& esc, const RawObject& target, const RawObject* host,
                                        const OptionTable& table, const std::string& owner) {
    model::EscalationRule rule;
    rule.first_notification = int_attr(esc, "first_notification", -2);
    rule.last_notification = int_attr(esc, "last_notification", -2);
    const RawObject& interval_from =
        host != nullptr && target.find("notification_interval") == nullptr ? *host : target;
    rule.notification_interval = esc.find("notification_interval") != nullptr
                                     ? number_attr(esc, "notification_interval", -2)
                                     : number_attr(interval_from, "notification_interval", -2);
    const RawObject& period_from =
        host != nullptr && target.find("notification_period") == nullptr ? *host : target;
    std::string_view period = esc.has_value("escalation_period") ? esc.get("escalation_period")
                                                                 : period_from.get("notification_period");
    if (!period.empty()) {
      rule.period = find_timeperiod(period);
      if (!model::is_set(rule.period))
        diags_.error(fmt::format("Unable to locate timeperiod '{}' for {}", period, owner), esc.at);
    }
    rule.options = options_attr(esc, "escalation_options", table, model::k_opt_all);
    const bool own_contacts = target.find("contacts") != nullptr || target.find("contact_groups") != nullptr;
    escalation_contacts(esc, host != nullptr && !own_contacts ? *host : target, rule, owner);
    return rule;
  }

  void build_host_escalations() {
    expand_each(
        ObjectType::hostescalation, model_->host_escalations, host_escalation_defs_,
        [&](const RawObject& obj) {
          std::string_view hosts = obj.get("host_name"), groups = obj.get("hostgroup_name");
          if (hosts.empty() && groups.empty()) {
            if (obj.template_name.empty()) diags_.error("Host escalation has no hosts", obj.at);
            return;
          }
          bool ok = true;
          for (model::HostId h : host_set(hosts, groups, obj, ok)) {
            const std::string owner = fmt::format("hostescalation '{}'", model_->hosts[model::index(h)].name);
            model_->host_escalations.push_back({h, escalation_rule(obj, *host_raws_[model::index(h)], nullptr,
                                                                   k_host_escalation_options, owner)});
          }
        });
  }

  void build_service_escalations() {
    expand_each(
        ObjectType::serviceescalation, model_->service_escalations, service_escalation_defs_,
        [&](const RawObject& obj) {
          std::string_view hosts = obj.get("host_name"), groups = obj.get("hostgroup_name"),
                           sgroups = obj.get("servicegroup_name"), desc = obj.get("service_description");
          if ((hosts.empty() && groups.empty() && sgroups.empty()) || (sgroups.empty() && desc.empty())) {
            if (obj.template_name.empty())
              diags_.error("Service escalation has no hosts and/or service_description", obj.at);
            return;
          }
          bool ok = true;
          for (model::ServiceId s : service_set(hosts, groups, sgroups, desc, obj, ok)) {
            const model::Service& svc = model_->services[model::index(s)];
            const std::string owner =
                fmt::format("serviceescalation '{};{}'", svc.host_name, svc.description);
            model_->service_escalations.push_back(
                {s, escalation_rule(obj, *service_raws_[model::index(s)], host_raws_[model::index(svc.host)],
                                    k_service_escalation_options, owner)});
          }
        });
  }

  // ---- pre-flight: Naemon's checks after registration ------------------------------------------------

  void preflight() {
    for (std::uint32_t i = 0; i < model_->hosts.size(); ++i) {
      const model::Host& h = model_->hosts[i];
      const RawObject& obj = *host_raws_[i];
      if (h.services.empty())
        diags_.warning(fmt::format("Host '{}' has no services associated with it!", h.name), obj.at);
      if (h.contacts.empty() && h.contact_groups.empty())
        diags_.warning(fmt::format("Host '{}' has no default contacts or contactgroups defined!", h.name),
                       obj.at);
      if (h.notification_options == model::k_opt_recovery)
        diags_.warning(
            fmt::format("Recovery notification option in host '{}' definition doesn't make any sense - "
                        "specify down and/or unreachable options as well",
                        h.name),
            obj.at);
    }
    for (std::uint32_t i = 0; i < model_->services.size(); ++i) {
      const model::Service& s = model_->services[i];
      const RawObject& obj = *service_raws_[i];
      if (s.contacts.empty() && s.contact_groups.empty())
        diags_.warning(
            fmt::format("Service '{}' on host '{}' has no default contacts or contactgroups defined!",
                        s.description, s.host_name),
            obj.at);
      if (s.notification_options == model::k_opt_recovery)
        diags_.warning(
            fmt::format("Recovery notification option in service '{}' for host '{}' doesn't make any "
                        "sense - specify warning and/or critical options as well",
                        s.description, s.host_name),
            obj.at);
    }
    for (std::uint32_t i = 0; i < model_->contacts.size(); ++i) {
      const model::Contact& c = model_->contacts[i];
      const RawObject& obj = *contact_raws_[i];
      if (c.service_notification_commands.empty())
        diags_.error(fmt::format("Contact '{}' has no service notification commands defined!", c.name),
                     obj.at);
      if (c.host_notification_commands.empty())
        diags_.error(fmt::format("Contact '{}' has no host notification commands defined!", c.name), obj.at);
      if (!model::is_set(c.service_notification_period))
        diags_.warning(fmt::format("Contact '{}' has no service notification time period defined!", c.name),
                       obj.at);
      if (!model::is_set(c.host_notification_period))
        diags_.warning(fmt::format("Contact '{}' has no host notification time period defined!", c.name),
                       obj.at);
    }
    if (options_.allow_circular_dependencies) return;
    check_parent_cycles();
    check_dependency_cycles();
    check_exclusion_cycles();
  }

  // Colours: 0 unvisited, 1 on the current path, 2 done. Iterative so deep chains cannot overflow the stack.
  template <typename Edges>
  void find_cycles(std::size_t count, Edges&& edges,
                   const std::function<void(std::uint32_t, std::uint32_t)>& report) {
    std::vector<std::uint8_t> colour(count, 0);
    std::vector<std::pair<std::uint32_t, std::size_t>> stack;
    for (std::uint32_t start = 0; start < count; ++start) {
      if (colour[start] != 0) continue;
      stack.push_back({start, 0});
      colour[start] = 1;
      while (!stack.empty()) {
        auto& [node, next] = stack.back();
        const auto& out = edges(node);
        if (next == out.size()) {
          colour[node] = 2;
          stack.pop_back();
          continue;
        }
        std::uint32_t to = out[next++];
        if (colour[to] == 1) {
          report(node, to);
        } else if (colour[to] == 0) {
          colour[to] = 1;
          stack.push_back({to, 0});
        }
      }
    }
  }

  void check_parent_cycles() {
    std::vector<std::vector<std::uint32_t>> edges(model_->hosts.size());
    for (std::uint32_t i = 0; i < model_->hosts.size(); ++i)
      for (model::HostId p : model_->hosts[i].parents) edges[i].push_back(model::index(p));
    find_cycles(
        edges.size(), [&](std::uint32_t n) -> const auto& { return edges[n]; },
        [&](std::uint32_t, std::uint32_t to) {
          diags_.error(
              fmt::format("The host '{}' is part of a circular parent/child chain!", model_->hosts[to].name),
              host_raws_[to]->at);
        });
  }

  void check_dependency_cycles() {
    for (auto kind : {model::DependencyKind::execution, model::DependencyKind::notification}) {
      const char* label = kind == model::DependencyKind::execution ? "execution" : "notification";
      std::vector<std::vector<std::uint32_t>> host_edges(model_->hosts.size());
      for (const auto& d : model_->host_dependencies)
        if (d.kind == kind) host_edges[model::index(d.dependent)].push_back(model::index(d.master));
      find_cycles(
          host_edges.size(), [&](std::uint32_t n) -> const auto& { return host_edges[n]; },
          [&](std::uint32_t from, std::uint32_t to) {
            diags_.error(fmt::format("Circular {} dependency detected between host '{}' and '{}'", label,
                                     model_->hosts[from].name, model_->hosts[to].name));
          });
      std::vector<std::vector<std::uint32_t>> svc_edges(model_->services.size());
      for (const auto& d : model_->service_dependencies)
        if (d.kind == kind) svc_edges[model::index(d.dependent)].push_back(model::index(d.master));
      find_cycles(
          svc_edges.size(), [&](std::uint32_t n) -> const auto& { return svc_edges[n]; },
          [&](std::uint32_t from, std::uint32_t to) {
            const auto& a = model_->services[from];
            const auto& b = model_->services[to];
            diags_.error(fmt::format("Circular {} dependency detected between service '{};{}' and '{};{}'",
                                     label, a.host_name, a.description, b.host_name, b.description));
          });
    }
  }

  void check_exclusion_cycles() {
    std::vector<std::vector<std::uint32_t>> edges(model_->timeperiods.size());
    for (std::uint32_t i = 0; i < model_->timeperiods.size(); ++i)
      for (model::TimeperiodId e : model_->timeperiods[i].exclusions) edges[i].push_back(model::index(e));
    find_cycles(
        edges.size(), [&](std::uint32_t n) -> const auto& { return edges[n]; },
        [&](std::uint32_t, std::uint32_t to) {
          diags_.error(fmt::format("The timeperiod '{}' is part of a circular exclusion chain!",
                                   model_->timeperiods[to].name),
                       timeperiod_raws_[to]->at);
        });
  }

  ObjectStore& store_;
  const BuildOptions& options_;
  Diagnostics& diags_;
  std::unique_ptr<model::Model> model_;
  RegexCache regex_;
  IdMarks host_marks_;  // scratch for host list expansion; one user at a time
  std::unordered_map<std::string_view, model::CommandCall> calls_;  // by command text, resolved ones
  // The definition each model object was built from (same index), for positions in later messages.
  std::vector<const RawObject*> timeperiod_raws_, contact_raws_, host_raws_, service_raws_;
  std::vector<const RawObject*> contactgroup_raws_, hostgroup_raws_, servicegroup_raws_;
  // Service definitions that lost to another one for the same host and description, with the service
  // (its index: instances become services in order) whose `servicegroups` they still add to.
  std::vector<std::pair<std::uint32_t, const RawObject*>> lost_servicegroups_;
  // The definition (store index) each escalation and dependency came from, parallel to the model's vectors.
  std::vector<std::uint32_t> host_escalation_defs_, service_escalation_defs_;
  std::vector<std::uint32_t> host_dependency_defs_, service_dependency_defs_;
};

}  // namespace

std::unique_ptr<model::Model> build_model(ObjectStore& store, const BuildOptions& options,
                                          Diagnostics& diags) {
  return Builder(store, options, diags).run();
}

}  // namespace vedette::config
