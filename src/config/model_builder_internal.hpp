// What the phases of build_model() share: the builder that carries the model through them, its directive
// readers and list expansion, and the option letters. Each phase is a file, in the order run() calls them:
//   model_builder.cpp                the order of the phases; registration by name
//   model_builder_values.cpp         directive values: booleans, numbers, option letters, names, periods
//   model_builder_lists.cpp          host, hostgroup, contact and service lists as Naemon expands them
//   model_builder_timeperiods.cpp    timeperiods, their rules and exclusions
//   model_builder_commands.cpp       commands, compiled and classified (native or not)
//   model_builder_contacts.cpp       contacts
//   model_builder_hosts.cpp          hosts, their parents, hostextinfo
//   model_builder_services.cpp       services on hosts and hostgroups, their parents, serviceextinfo
//   model_builder_groups.cpp         contact, host and service groups: members and subgroups
//   model_builder_dependencies.cpp   host and service dependencies
//   model_builder_escalations.cpp    host and service escalations
//   model_builder_preflight.cpp      Naemon's pre-flight checks: warnings, circular chains
// Loader thread.
#pragma once

#include "config/command_compiler.hpp"
#include "config/custom_variables.hpp"
#include "config/depth_first_internal.hpp"
#include "config/id_marks_internal.hpp"
#include "config/list_items_internal.hpp"
#include "config/model_builder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <ranges>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace vedette::config::internal {

using model::OptionSet;

template <typename Id>
void sort_unique(std::vector<Id>& list) {
  std::sort(list.begin(), list.end());
  list.erase(std::unique(list.begin(), list.end()), list.end());
}

// A letter or word of an option list and the bits it sets.
struct OptionName {
  std::string_view letter;
  std::string_view word;
  OptionSet bits;
};

// The option letters, in model_builder_values.cpp.
using OptionTable = std::initializer_list<OptionName>;
extern const OptionTable k_host_notification_options;
extern const OptionTable k_service_notification_options;
extern const OptionTable k_host_state_options;
extern const OptionTable k_service_state_options;
extern const OptionTable k_host_stalking_options;
extern const OptionTable k_service_stalking_options;
extern const OptionTable k_host_escalation_options;
extern const OptionTable k_service_escalation_options;
extern const OptionTable k_host_dependency_options;
extern const OptionTable k_service_dependency_options;

class ModelBuilder {
 public:
  ModelBuilder(ObjectStore& store, const BuildOptions& options, Diagnostics& diags)
      : store_(store),
        options_(options),
        diags_(diags),
        model_(std::make_unique<model::Model>()),
        custom_variables_(store) {}

  std::unique_ptr<model::Model> run();

 private:
  // ---- directive values (model_builder_values.cpp) ----------------------------------------------------

  std::string_view intern(std::string_view s) { return model_->strings.intern(s); }

  bool bool_attr(const RawObject& obj, DirectiveKey key, bool fallback);
  // Numbers are read as Naemon reads them (atoi/strtod: leading number, rest ignored); text that is not
  // a number at all is reported, because Naemon would silently take it as 0.
  double number_attr(const RawObject& obj, DirectiveKey key, double fallback);
  double parse_number(const RawObject& obj, const RawAttr& attr, DirectiveKey key, double fallback);
  int int_attr(const RawObject& obj, DirectiveKey key, int fallback) {
    return static_cast<int>(number_attr(obj, key, fallback));
  }
  // The bits of `attr`, the value of `key` that `obj` has (own or inherited), parsed once.
  OptionSet parse_options(const RawObject& obj, const RawAttr& attr, DirectiveKey key,
                          const OptionTable& table);
  OptionSet options_attr(const RawObject& obj, DirectiveKey key, const OptionTable& table,
                         OptionSet fallback);
  void check_description(const model::Service& s, const RawObject& obj);
  void check_name(std::string_view name, std::string_view what, const RawObject& obj);
  model::TimeperiodId find_timeperiod(std::string_view name);
  std::vector<model::CustomVariable> custom_variables(const RawObject& obj);
  int initial_state(const RawObject& obj, bool host);

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

  // The directives hosts and services read the same way, with Naemon's defaults. Objects setting none of
  // them share their templates' result: reading it for each of 600k services was a fifth of the build.
  void checkable_values(const RawObject& obj, const OptionTables& tables, model::Checkable& c);
  void read_settings(const RawObject& obj, const OptionTables& tables, model::CheckableSettings& c);
  struct BasesHash {
    std::size_t operator()(const std::vector<const RawObject*>& bases) const;
  };
  // hostextinfo and serviceextinfo: a directive fills the field only where the object left it empty.
  void fill_empty(std::string_view& field, const RawObject& obj, DirectiveKey key);
  void fill_from_extinfo(const RawObject& obj, model::Checkable& c);

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

  // ---- object lists (model_builder_lists.cpp) ---------------------------------------------------------

  const regex_t* regex_for(std::string_view item, const RawObject& obj);
  bool wants_regex(std::string_view item) const;
  // Items of an object list: names, "*", regular expressions (with use_regexp_matching) and `!name`
  // rejections. take(index, rejected) runs for each of the `count` objects an item matches; an item that
  // matches none is reported ("Could not find any <what> matching …") and makes the result false.
  template <typename NameOf, typename Index, typename Take>
  bool expand_list(std::string_view list, std::string_view what, std::size_t count, NameOf&& name_of,
                   const Index& by_name, const RawObject& obj, Take&& take);
  // Expands a host list ("web1, web*, *, !db1") as Naemon does. Accepted hosts are appended in list order;
  // rejected ones are marked. Returns false (after reporting) when an item matches no host.
  bool expand_hosts(std::string_view list, std::vector<model::HostId>& accepted, IdMarks& rejected,
                    const RawObject& obj);
  // Expands a hostgroup list into its members; a `!group` rejects the group's members.
  bool expand_hostgroups(std::string_view list, std::vector<model::HostId>& accepted, IdMarks& rejected,
                         const RawObject& obj);
  // Hosts named by a host list and a hostgroup list together, rejections applied, each host once.
  std::vector<model::HostId> host_set(std::string_view hosts, std::string_view hostgroups,
                                      const RawObject& obj, bool& ok);
  // A contact group's `members`: rejected contacts are marked.
  void expand_contacts(std::string_view list, std::vector<model::ContactId>& accepted, IdMarks& rejected,
                       const RawObject& obj);
  // Services of `host` matching a description list ("*", names, regexes, `!exclusions`).
  std::vector<model::ServiceId> services_on(model::HostId host, std::string_view descriptions,
                                            const RawObject& obj, bool& ok);
  // The services of "host list,description list" pairs (service parents, servicegroup members), in order;
  // a trailing odd item is ignored (the callers report it).
  std::vector<model::ServiceId> services_of_pairs(const std::vector<std::string_view>& items,
                                                  const RawObject& obj, bool& ok);
  // Services named by host/hostgroup × description and by servicegroups (dependencies, escalations).
  std::vector<model::ServiceId> service_set(std::string_view hosts, std::string_view hostgroups,
                                            std::string_view servicegroups, std::string_view descriptions,
                                            const RawObject& obj, bool& ok);

  template <typename Owner>
  void resolve_contacts(const RawObject& obj, std::string_view contacts, std::string_view groups,
                        std::vector<model::ContactId>& contact_ids,
                        std::vector<model::ContactgroupId>& group_ids, Owner&& owner) {
    contact_marks_.start(model_->contacts.size());
    for (model::ContactId c : contact_ids) contact_marks_.set(model::index(c));
    for (std::string_view name : split_list(contacts)) {
      auto it = model_->contact_by_name.find(name);
      if (it == model_->contact_by_name.end()) {
        diags_.error(fmt::format("Contact '{}' specified in {} is not defined anywhere!", name, owner()),
                     obj.at);
        continue;
      }
      if (contact_marks_.insert(model::index(it->second))) contact_ids.push_back(it->second);
    }
    contactgroup_marks_.start(model_->contactgroups.size());
    for (model::ContactgroupId g : group_ids) contactgroup_marks_.set(model::index(g));
    for (std::string_view name : split_list(groups)) {
      auto it = model_->contactgroup_by_name.find(name);
      if (it == model_->contactgroup_by_name.end()) {
        diags_.error(
            fmt::format("Contact group '{}' specified in {} is not defined anywhere!", name, owner()),
            obj.at);
        continue;
      }
      if (contactgroup_marks_.insert(model::index(it->second))) group_ids.push_back(it->second);
    }
  }

  // ---- registration (model_builder.cpp) ---------------------------------------------------------------

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
    const RawObjects& objs = store_.of(type);
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
  bool named(const RawObject& obj, DirectiveKey name_key);

  // ---- the phases, in run()'s order -------------------------------------------------------------------

  // model_builder_timeperiods.cpp
  void parse_rules(std::uint32_t index, std::vector<char>& parsed, std::vector<timeperiod::Rules>& own);
  void build_timeperiods();

  // model_builder_commands.cpp
  void build_commands();

  // model_builder_contacts.cpp
  void build_contacts();

  // model_builder_hosts.cpp
  void build_hosts();
  void coords(const RawObject& obj, model::Host& h);
  template <typename Missing>
  model::TimeperiodId period_attr(const RawObject& obj, DirectiveKey key, Missing&& missing);
  void check_host_values(const model::Host& h, const RawObject& obj);
  void merge_hostextinfo();

  // model_builder_services.cpp
  // One service definition applied to one host.
  struct ServiceInstance {
    const RawObject* raw;
    std::string_view description;
    model::HostId host;
    bool from_hostgroup;
  };
  void build_services();
  // The service's value for `key`, else its host's (Naemon's implied inheritance).
  const RawAttr* service_or_host(const RawObject& svc, const RawObject& host, DirectiveKey key);
  void build_service(const ServiceInstance& inst);
  void resolve_service_parents(std::uint32_t s);
  void merge_serviceextinfo();

  // model_builder_groups.cpp
  void build_contactgroups();
  void build_hostgroups();
  void build_servicegroups();
  template <typename GroupId, typename Group, typename Index>
  void expand_subgroups(const std::vector<const RawObject*>& raws, DirectiveKey key,
                        std::vector<Group>& groups, const Index& by_name, std::string_view what);
  template <typename Group, typename Id>
  std::vector<const RawObject*> register_groups(ObjectType type, DirectiveKey name_key,
                                                std::unordered_map<std::string_view, Id>& by_name,
                                                std::vector<Group>& groups, std::string_view what);
  // The `!name` items of a list, sorted.
  static std::vector<std::string_view> split_excludes(std::string_view list);

  // model_builder_dependencies.cpp
  template <typename Dep, typename Id>
  void add_dependencies(std::vector<Dep>& out, const RawObject& obj, Id master, Id dependent,
                        const OptionTable& table);
  void build_host_dependencies();
  void build_service_dependencies();

  // model_builder_escalations.cpp
  void escalation_contacts(const RawObject& esc, const RawObject& contacts_from, model::EscalationRule& rule,
                           const std::string& owner);
  model::EscalationRule escalation_rule(const RawObject& esc, const RawObject& target, const RawObject* host,
                                        const OptionTable& table, const std::string& owner);
  void build_host_escalations();
  void build_service_escalations();

  // model_builder_preflight.cpp
  void preflight();
  template <typename Edges>
  void find_cycles(std::size_t count, Edges&& edges,
                   const std::function<void(std::uint32_t, std::uint32_t)>& report);
  void check_parent_cycles();
  void check_dependency_cycles();
  void check_exclusion_cycles();

  ObjectStore& store_;
  const BuildOptions& options_;
  Diagnostics& diags_;
  std::unique_ptr<model::Model> model_;
  RegexCache regex_;
  CustomVariables custom_variables_;
  // Scratch sets, one user at a time each: list expansion and duplicate removal without a scan per item
  // (bench/config/load_bench.py's 1host-* and depchain-* shapes were quadratic with scans).
  IdMarks host_marks_;          // host lists
  IdMarks service_marks_;       // services_on(), service parents
  IdMarks service_set_marks_;   // service_set(), around its services_on() calls
  IdMarks contact_marks_;       // contact lists
  IdMarks contactgroup_marks_;  // contact group lists
  IdMarks timeperiod_marks_;    // a timeperiod's exclusions
  // expand_hosts()' last list that was one host's name, and the host.
  struct {
    std::string_view list;
    model::HostId id = model::no_id<model::HostId>();
  } last_host_;
  // checkable_values() of the objects that set none of the settings themselves, by their templates.
  std::unordered_map<std::vector<const RawObject*>, model::CheckableSettings, BasesHash> settings_by_bases_;
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

}  // namespace vedette::config::internal
