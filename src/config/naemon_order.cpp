#include "config/naemon_order.hpp"

#include "config/depth_first_internal.hpp"
#include "config/id_marks_internal.hpp"
#include "config/list_items_internal.hpp"
#include "model/name_order.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace vedette::config {

namespace {

using internal::IdMarks;
using internal::matches;
using internal::RegexCache;
using internal::split_list;
using internal::split_list_vector;
using Ids = std::vector<std::uint32_t>;
using IdSet = std::unordered_set<std::uint32_t>;

constexpr std::uint32_t k_none = model::k_no_id;

// A group as Naemon's configuration code fills it: members in the order they were added, each once, none
// of those its own `!` items rejected. Naemon prepends each one, so its list is this order reversed.
struct Filling {
  Ids added;
  IdSet in;
  IdSet rejected;

  void add(std::uint32_t id) {
    if (rejected.contains(id) || !in.insert(id).second) return;
    added.push_back(id);
  }
};

Ids reversed(Ids ids) {
  std::reverse(ids.begin(), ids.end());
  return ids;
}

// One kind of named object (hosts, contacts, the three group types): its registered objects in the order
// Naemon keeps their definitions (newest first) and a lookup by name.
struct Kind {
  std::size_t count = 0;  // model objects: ids are below it
  Ids newest_first;
  std::function<std::uint32_t(std::string_view)> find;
  std::function<std::string_view(std::uint32_t)> name;
};

// A position in Naemon's registration sequence of escalations or dependencies: per host or service,
// Naemon's list holds them newest registration first.
struct Registration {
  std::uint32_t definition;
  std::uint32_t object;  // the escalated host/service, or the dependent one
  std::uint32_t master;  // dependencies only
  std::uint8_t kind;     // dependencies only: model::DependencyKind
  bool operator==(const Registration&) const = default;
};

struct RegistrationHash {
  std::size_t operator()(const Registration& r) const {
    std::uint64_t h = r.definition;
    h = h * 1000003u ^ r.object;
    h = h * 1000003u ^ r.master;
    h = h * 1000003u ^ r.kind;
    return std::hash<std::uint64_t>{}(h);
  }
};

class Replay {
 public:
  Replay(const ObjectStore& store, const BuildOptions& options, const BuiltFrom& from, model::Model& m)
      : store_(store), options_(options), from_(from), m_(m) {}

  // Naemon's own sequence: read, fill contact and host groups, copy services per host, fill service groups,
  // then copy and register escalations and dependencies.
  void run() {
    reading_order();
    kinds();
    fill_contactgroups();
    fill_hostgroups();
    duplicate_services();
    fill_servicegroups();
    order_escalations_and_dependencies();
  }

 private:
  // ---- the order Naemon reads definitions in ------------------------------------------------------

  // Naemon reads every cfg_file before any cfg_dir, each kind last-named first (it prepends them to its
  // lists), and prepends each definition it reads to the list of its type: newest first.
  void reading_order() {
    for (std::size_t t = 0; t < k_object_type_count; ++t) {
      const auto type = static_cast<ObjectType>(t);
      Ids read;
      if (options_.sources.empty()) {
        for (std::uint32_t i = 0; i < store_.of(type).size(); ++i) read.push_back(i);
      } else {
        for (const bool dirs : {false, true})
          for (auto it = options_.sources.rbegin(); it != options_.sources.rend(); ++it)
            if (it->is_dir == dirs)
              for (std::uint32_t i = it->begin[t]; i < it->end[t]; ++i) read.push_back(i);
      }
      newest_first_[t] = reversed(std::move(read));
    }
  }

  const Ids& newest_first(ObjectType type) const { return newest_first_[static_cast<std::size_t>(type)]; }
  const RawObject& def(ObjectType type, std::uint32_t index) const { return store_.of(type)[index]; }

  // The model id each definition of `type` became (k_none for templates, duplicates and errors).
  Ids model_ids(ObjectType type, const std::vector<const RawObject*>& built) const {
    std::unordered_map<const RawObject*, std::uint32_t> id_of;
    for (std::uint32_t i = 0; i < built.size(); ++i) id_of.emplace(built[i], i);
    Ids out(store_.of(type).size(), k_none);
    for (std::uint32_t i = 0; i < out.size(); ++i)
      if (auto it = id_of.find(&store_.of(type)[i]); it != id_of.end()) out[i] = it->second;
    return out;
  }

  // Definitions name the same object many times in a row (a host's services are written together), so the
  // last name found is remembered: the hash lookups were a tenth of the replay at 600k services.
  template <typename Map>
  static std::function<std::uint32_t(std::string_view)> finder(const Map& by_name) {
    return [&by_name, last_name = std::string_view{}, last_id = k_none](std::string_view name) mutable {
      if (last_id != k_none && name == last_name) return last_id;
      auto it = by_name.find(name);
      if (it == by_name.end()) return k_none;
      last_name = name;
      last_id = model::index(it->second);
      return last_id;
    };
  }

  Kind kind_of(ObjectType type, const std::vector<const RawObject*>& built, Ids& ids_of_defs,
               std::function<std::uint32_t(std::string_view)> find,
               std::function<std::string_view(std::uint32_t)> name) {
    ids_of_defs = model_ids(type, built);
    Kind k{built.size(), {}, std::move(find), std::move(name)};
    for (std::uint32_t d : newest_first(type))
      if (ids_of_defs[d] != k_none) k.newest_first.push_back(ids_of_defs[d]);
    return k;
  }

  void kinds() {
    hosts_ = kind_of(ObjectType::host, from_.hosts, host_of_def_, finder(m_.host_by_name),
                     [this](std::uint32_t i) { return m_.hosts[i].name; });
    contacts_ = kind_of(ObjectType::contact, from_.contacts, contact_of_def_, finder(m_.contact_by_name),
                        [this](std::uint32_t i) { return m_.contacts[i].name; });
    Ids unused;
    hostgroups_ = kind_of(ObjectType::hostgroup, from_.hostgroups, unused, finder(m_.hostgroup_by_name),
                          [this](std::uint32_t i) { return m_.hostgroups[i].name; });
    servicegroups_ =
        kind_of(ObjectType::servicegroup, from_.servicegroups, unused, finder(m_.servicegroup_by_name),
                [this](std::uint32_t i) { return m_.servicegroups[i].name; });
    contactgroups_ =
        kind_of(ObjectType::contactgroup, from_.contactgroups, unused, finder(m_.contactgroup_by_name),
                [this](std::uint32_t i) { return m_.contactgroups[i].name; });
  }

  // ---- expanding lists of names ---------------------------------------------------------------------

  bool wants_regex(std::string_view item) const {
    if (!options_.use_regexp_matches) return false;
    return options_.use_true_regexp_matching || item.find_first_of("*?+") != std::string_view::npos ||
           item.find("\\.") != std::string_view::npos;
  }

  // Every object of `kind` an item names ("*", a regular expression or a name), in the order Naemon visits
  // them: definitions newest first.
  template <typename Fn>
  void visit_item(const Kind& kind, std::string_view item, Fn&& fn) {
    if (wants_regex(item)) {
      const regex_t* re = regex_.get(item);
      if (re == nullptr) return;
      for (std::uint32_t id : kind.newest_first)
        if (matches(re, kind.name(id))) fn(id);
    } else if (item == "*") {
      for (std::uint32_t id : kind.newest_first) fn(id);
    } else if (const std::uint32_t id = kind.find(item); id != k_none) {
      fn(id);
    }
  }

  // A list such as "web1,web*,!db1" as Naemon expands it: the accepted objects in the order of its result
  // list (each was prepended, so the last one visited comes first); `!` items go to `rejected`.
  template <typename Reject>
  Ids expand(const Kind& kind, std::string_view list, Reject&& rejected) {
    Ids visited;
    expand_into(kind, list, visited, rejected);
    return visited;
  }

  // expand() into `out` (empty), for loops that reuse its memory.
  template <typename Reject>
  void expand_into(const Kind& kind, std::string_view list, Ids& out, Reject&& rejected) {
    for (std::string_view item : split_list(list)) {
      const bool reject = item.front() == '!';
      if (reject) item.remove_prefix(1);
      visit_item(kind, item, [&](std::uint32_t id) {
        if (reject)
          rejected(id);
        else
          out.push_back(id);
      });
    }
    std::reverse(out.begin(), out.end());
  }

  // A host's `hostgroups` (a contact's `contactgroups`, a service's `servicegroups`) as Naemon rewrites it
  // before use: each group once, most recently named first (a group named again keeps its first place),
  // rejected ones removed.
  Ids group_names(const Kind& groups, std::string_view list) {
    Ids kept;
    named_.start(groups.count);
    rejected_.start(groups.count);
    for (std::string_view item : split_list(list)) {
      const bool reject = item.front() == '!';
      if (reject) item.remove_prefix(1);
      visit_item(groups, item, [&](std::uint32_t id) {
        if (reject)
          rejected_.set(id);
        else if (named_.insert(id))
          kept.push_back(id);
      });
    }
    std::erase_if(kept, [&](std::uint32_t id) { return rejected_.test(id); });
    return reversed(std::move(kept));
  }

  // `*group_members`: each group takes the members of the groups it includes, recursively, visiting the
  // included groups most recently named first; groups are resolved newest definition first. A group still
  // open (a loop) gives what it has so far. A chain of 100k groups overflowed the stack of a recursive walk.
  void fill_subgroups(const Kind& groups, const std::vector<const RawObject*>& built, DirectiveKey key,
                      std::vector<Filling>& fillings) {
    std::vector<Ids> included(fillings.size());
    for (std::uint32_t g = 0; g < built.size(); ++g)
      for (std::string_view name : split_list(built[g]->get(key)))
        if (const std::uint32_t sub = groups.find(name); sub != k_none) included[g].push_back(sub);
    for (Ids& subs : included) std::reverse(subs.begin(), subs.end());
    auto take = [&](std::uint32_t into, std::uint32_t from) {
      const Ids& theirs = fillings[from].added;
      for (auto it = theirs.rbegin(); it != theirs.rend(); ++it) fillings[into].add(*it);
    };
    internal::walk_depth_first(
        fillings.size(), groups.newest_first, [&](std::uint32_t g) -> const Ids& { return included[g]; },
        [&](std::uint32_t g, std::uint32_t sub, bool) { take(g, sub); },
        [&](std::uint32_t g, std::uint32_t parent) {
          if (parent != internal::k_no_parent) take(parent, g);
        });
  }

  // ---- groups ---------------------------------------------------------------------------------------

  void fill_contactgroups() {
    std::vector<Filling> fillings(m_.contactgroups.size());
    for (std::uint32_t g = 0; g < fillings.size(); ++g) {
      Filling& f = fillings[g];
      for (std::uint32_t c : expand(contacts_, from_.contactgroups[g]->get("members"),
                                    [&](std::uint32_t r) { f.rejected.insert(r); }))
        f.add(c);
    }
    for (std::uint32_t d : newest_first(ObjectType::contact)) {
      const std::uint32_t c = contact_of_def_[d];
      if (c == k_none) continue;
      for (std::uint32_t g : group_names(contactgroups_, def(ObjectType::contact, d).get("contact_groups")))
        fillings[g].add(c);
    }
    fill_subgroups(contactgroups_, from_.contactgroups, "contactgroup_members", fillings);
    for (std::uint32_t g = 0; g < fillings.size(); ++g) {
      model::Contactgroup& group = m_.contactgroups[g];
      group.listed_members = listed(fillings[g].added, group.members);
    }
  }

  void fill_hostgroups() {
    std::vector<Filling> fillings(m_.hostgroups.size());
    for (std::uint32_t g = 0; g < fillings.size(); ++g) {
      Filling& f = fillings[g];
      for (std::uint32_t h : expand(hosts_, from_.hostgroups[g]->get("members"),
                                    [&](std::uint32_t r) { f.rejected.insert(r); }))
        f.add(h);
    }
    for (std::uint32_t d : newest_first(ObjectType::host)) {
      const std::uint32_t h = host_of_def_[d];
      if (h == k_none) continue;
      for (std::uint32_t g : group_names(hostgroups_, def(ObjectType::host, d).get("hostgroups")))
        fillings[g].add(h);
    }
    fill_subgroups(hostgroups_, from_.hostgroups, "hostgroup_members", fillings);
    hostgroup_members_.resize(fillings.size());
    for (std::uint32_t g = 0; g < fillings.size(); ++g) hostgroup_members_[g] = reversed(fillings[g].added);
  }

  // The model's members in Naemon's order; any the replay did not place keep their model order at the end.
  template <typename Id>
  static std::vector<Id> listed(const Ids& order, const std::vector<Id>& members) {
    std::unordered_set<std::uint32_t> wanted;
    for (Id id : members) wanted.insert(model::index(id));
    std::vector<Id> out;
    out.reserve(members.size());
    for (std::uint32_t id : order)
      if (wanted.erase(id) != 0) out.push_back(Id{id});
    for (Id id : members)
      if (wanted.contains(model::index(id))) out.push_back(id);
    return out;
  }

  // ---- services --------------------------------------------------------------------------------------

  std::uint32_t service_on(std::uint32_t host, std::string_view description) const {
    const model::ServiceId s = m_.find_service(model::HostId{host}, description);
    return model::is_set(s) ? model::index(s) : k_none;
  }

  // Naemon copies a definition for every host it applies to and prepends each copy to its service list;
  // the definition itself takes the last host. Copies are never visited again, so the list ends as: all
  // copies, newest first, then the definitions in their own order.
  void duplicate_services() {
    std::vector<Node> copies, originals;
    Ids group_list, host_list;  // reused: a million definitions of one host each allocated four times
    std::vector<const Ids*> lists;
    IdMarks& taken = taken_hosts_;
    for (std::uint32_t d : newest_first(ObjectType::service)) {
      const RawObject& obj = def(ObjectType::service, d);
      if (!obj.registered) continue;
      const std::string_view hosts = obj.get("host_name"), groups = obj.get("hostgroup_name");
      const std::string_view description = obj.get("service_description");
      if ((hosts.empty() && groups.empty()) || description.empty()) continue;
      taken.start(m_.hosts.size());
      group_list.clear();
      host_list.clear();
      if (!groups.empty())
        expand_into(hostgroups_, groups, group_list, [&](std::uint32_t g) {
          for (std::uint32_t h : hostgroup_members_[g]) taken.set(h);
        });
      if (!hosts.empty()) expand_into(hosts_, hosts, host_list, [&](std::uint32_t h) { taken.set(h); });
      // The host list comes first, as a group of its own.
      lists.assign(1, &host_list);
      for (std::uint32_t g : group_list) lists.push_back(&hostgroup_members_[g]);
      for (std::size_t l = 0; l < lists.size(); ++l) {
        const Ids& members = *lists[l];
        for (std::size_t i = 0; i < members.size(); ++i) {
          if (!taken.insert(members[i])) continue;
          const Node node{&obj, members[i], service_on(members[i], description)};
          const bool last = l + 1 == lists.size() && i + 1 == members.size();
          (last ? originals : copies).push_back(node);
        }
      }
    }
    service_list_.reserve(copies.size() + originals.size());
    service_list_.assign(copies.rbegin(), copies.rend());
    service_list_.insert(service_list_.end(), originals.begin(), originals.end());
  }

  // Each host's own list of its services, built by prepending while walking the service list. Only a
  // wildcard or a regular expression in a service list needs it: made the first time one does.
  const Ids& services_of_host(std::uint32_t host) {
    if (services_of_host_.empty()) {
      services_of_host_.resize(m_.hosts.size());
      for (auto it = service_list_.rbegin(); it != service_list_.rend(); ++it)
        if (it->service != k_none) services_of_host_[it->host].push_back(it->service);
    }
    return services_of_host_[host];
  }

  void reject_members(std::uint32_t hostgroup, IdSet& rejected) const {
    for (std::uint32_t h : hostgroup_members_[hostgroup]) rejected.insert(h);
  }

  // Services on hosts named by `host_item` (a name or a regular expression) matching `descriptions`, in
  // the order Naemon's expansion returns them; `!` descriptions go to `rejected`.
  Ids expand_services(std::string_view host_item, std::string_view descriptions, IdSet& rejected) {
    Ids visited;
    const bool host_regex = wants_regex(host_item);
    const regex_t* host_re = host_regex ? regex_.get(host_item) : nullptr;
    const std::uint32_t host = host_regex ? k_none : hosts_.find(host_item);
    for (std::string_view item : split_list(descriptions)) {
      const bool reject = item.front() == '!';
      if (reject) item.remove_prefix(1);
      const bool any = item == "*" || (options_.use_regexp_matches && item == ".*");
      const regex_t* re = !any && wants_regex(item) ? regex_.get(item) : nullptr;
      auto take = [&](std::uint32_t s) {
        if (reject)
          rejected.insert(s);
        else
          visited.push_back(s);
      };
      auto wanted = [&](std::uint32_t s) {
        const std::string_view d = m_.services[s].description;
        return any || (re != nullptr ? matches(re, d) : d == item);
      };
      if (host_regex) {
        if (host_re == nullptr) continue;
        for (const Node& n : service_list_)
          if (n.service != k_none && matches(host_re, m_.hosts[n.host].name) && wanted(n.service))
            take(n.service);
      } else if (host == k_none) {
        continue;
      } else if (any || re != nullptr) {
        for (std::uint32_t s : services_of_host(host))
          if (wanted(s)) take(s);
      } else if (const std::uint32_t s = service_on(host, item); s != k_none) {
        take(s);
      }
    }
    return reversed(std::move(visited));
  }

  // A servicegroup's `members` ("host1,svc1,host2,svc2"): each pair expanded in turn into one list.
  Ids expand_service_pairs(std::string_view list, IdSet& rejected) {
    const std::vector<std::string_view> items = split_list_vector(list);
    std::vector<Ids> parts;
    for (std::size_t i = 0; i + 1 < items.size(); i += 2)
      parts.push_back(expand_services(items[i], items[i + 1], rejected));
    // Each pair prepends to the same list: later pairs end up in front.
    Ids all;
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) all.insert(all.end(), it->begin(), it->end());
    return all;
  }

  void fill_servicegroups() {
    std::vector<Filling> fillings(m_.servicegroups.size());
    for (std::uint32_t g = 0; g < fillings.size(); ++g) {
      Filling& f = fillings[g];
      for (std::uint32_t s : expand_service_pairs(from_.servicegroups[g]->get("members"), f.rejected))
        f.add(s);
    }
    // Services mostly take `servicegroups` from a template, so the same list comes again and again. The
    // groups of the empty list, the first one compared, are none.
    std::string_view last_list;
    Ids last_groups;
    for (const Node& n : service_list_) {
      if (n.service == k_none) continue;
      const std::string_view list = n.def->get("servicegroups");
      if (list != last_list) {
        last_groups = group_names(servicegroups_, list);
        last_list = list;
      }
      for (std::uint32_t g : last_groups) fillings[g].add(n.service);
    }
    fill_subgroups(servicegroups_, from_.servicegroups, "servicegroup_members", fillings);
    servicegroup_members_.resize(fillings.size());
    for (std::uint32_t g = 0; g < fillings.size(); ++g) {
      model::Servicegroup& group = m_.servicegroups[g];
      group.listed_members = listed(fillings[g].added, group.members);
      servicegroup_members_[g] = reversed(fillings[g].added);
    }
  }

  // ---- escalations and dependencies ---------------------------------------------------------------------

  // Hosts named by a host list and a hostgroup list (escalations, host dependencies), in Naemon's order:
  // the hostgroups' members (each prepended) before the listed hosts. A `!host` rejects only group members.
  Ids hosts_and_groups(std::string_view groups, std::string_view hosts) {
    IdSet rejected;
    Ids listed_hosts = expand(hosts_, hosts, [&](std::uint32_t h) { rejected.insert(h); });
    const Ids group_list = expand(hostgroups_, groups, [&](std::uint32_t g) { reject_members(g, rejected); });
    Ids from_groups;
    for (std::uint32_t g : group_list)
      for (std::uint32_t h : hostgroup_members_[g])
        if (!rejected.contains(h)) from_groups.push_back(h);
    Ids out = reversed(std::move(from_groups));
    out.insert(out.end(), listed_hosts.begin(), listed_hosts.end());
    return out;
  }

  // Services named by hosts, hostgroups, servicegroups and descriptions (service escalations and
  // dependencies), in Naemon's order; `rejected` collects `!` exclusions and is read as well.
  Ids service_set(std::string_view hosts, std::string_view groups, std::string_view servicegroups,
                  std::string_view descriptions, IdSet& rejected) {
    Ids added;
    IdSet in;
    auto add = [&](std::uint32_t s) {
      if (rejected.contains(s) || !in.insert(s).second) return;
      added.push_back(s);
    };
    const Ids sg_list = expand(servicegroups_, servicegroups, [&](std::uint32_t g) {
      for (std::uint32_t s : servicegroup_members_[g]) rejected.insert(s);
    });
    for (std::uint32_t g : sg_list)
      for (std::uint32_t s : servicegroup_members_[g]) add(s);
    IdSet host_rejected;
    const Ids host_list = expand(hosts_, hosts, [&](std::uint32_t h) { host_rejected.insert(h); });
    const Ids group_list =
        expand(hostgroups_, groups, [&](std::uint32_t g) { reject_members(g, host_rejected); });
    std::vector<const Ids*> lists;
    if (!host_list.empty()) lists.push_back(&host_list);
    for (std::uint32_t g : group_list) lists.push_back(&hostgroup_members_[g]);
    for (const Ids* members : lists)
      for (std::uint32_t h : *members) {
        if (host_rejected.contains(h)) continue;
        for (std::uint32_t s : expand_services(m_.hosts[h].name, descriptions, rejected)) add(s);
      }
    return reversed(std::move(added));
  }

  // Copies of an escalation per object, registered as for services: all copies newest first, then the
  // definitions (each with its last object) in their own order.
  template <typename Objects>
  void register_escalations(ObjectType type, Objects&& objects_of, std::vector<Registration>& order) {
    std::vector<Registration> copies, originals;
    for (std::uint32_t d : newest_first(type)) {
      const RawObject& obj = def(type, d);
      if (!obj.registered) continue;
      const Ids objects = objects_of(obj);
      for (std::size_t i = 0; i < objects.size(); ++i)
        (i + 1 == objects.size() ? originals : copies).push_back({d, objects[i], 0, 0});
    }
    order.assign(copies.rbegin(), copies.rend());
    order.insert(order.end(), originals.begin(), originals.end());
  }

  std::vector<Registration> host_escalation_order() {
    std::vector<Registration> order;
    register_escalations(
        ObjectType::hostescalation,
        [&](const RawObject& obj) {
          if (obj.get("host_name").empty() && obj.get("hostgroup_name").empty()) return Ids{};
          return hosts_and_groups(obj.get("hostgroup_name"), obj.get("host_name"));
        },
        order);
    return order;
  }

  std::vector<Registration> service_escalation_order() {
    std::vector<Registration> order;
    register_escalations(
        ObjectType::serviceescalation,
        [&](const RawObject& obj) {
          const std::string_view hosts = obj.get("host_name"), groups = obj.get("hostgroup_name");
          const std::string_view sgroups = obj.get("servicegroup_name");
          const std::string_view descriptions = obj.get("service_description");
          if (sgroups.empty() && descriptions.empty() && (hosts.empty() || groups.empty())) return Ids{};
          IdSet rejected;
          Ids services = service_set(hosts, groups, sgroups, descriptions, rejected);
          std::erase_if(services, [&](std::uint32_t s) { return rejected.contains(s); });
          return services;
        },
        order);
    return order;
  }

  static void register_dependency(const RawObject& obj, std::uint32_t d, std::uint32_t master,
                                  std::uint32_t dependent, std::vector<Registration>& order) {
    if (obj.find("execution_failure_criteria") != nullptr)
      order.push_back({d, dependent, master, static_cast<std::uint8_t>(model::DependencyKind::execution)});
    if (obj.find("notification_failure_criteria") != nullptr)
      order.push_back({d, dependent, master, static_cast<std::uint8_t>(model::DependencyKind::notification)});
  }

  std::vector<Registration> host_dependency_order() {
    std::vector<Registration> order;
    for (std::uint32_t d : newest_first(ObjectType::hostdependency)) {
      const RawObject& obj = def(ObjectType::hostdependency, d);
      if (!obj.registered) continue;
      const Ids masters = hosts_and_groups(obj.get("hostgroup_name"), obj.get("host_name"));
      const Ids dependents =
          hosts_and_groups(obj.get("dependent_hostgroup_name"), obj.get("dependent_host_name"));
      for (std::uint32_t m : masters)
        for (std::uint32_t c : dependents) register_dependency(obj, d, m, c, order);
    }
    return order;
  }

  std::vector<Registration> service_dependency_order() {
    std::vector<Registration> order;
    for (std::uint32_t d : newest_first(ObjectType::servicedependency)) {
      const RawObject& obj = def(ObjectType::servicedependency, d);
      if (!obj.registered) continue;
      const std::string_view mh = obj.get("host_name"), mhg = obj.get("hostgroup_name"),
                             msg = obj.get("servicegroup_name"), md = obj.get("service_description");
      const std::string_view dh = obj.get("dependent_host_name"), dhg = obj.get("dependent_hostgroup_name"),
                             dsg = obj.get("dependent_servicegroup_name"),
                             dd = obj.get("dependent_service_description");
      // Masters named by description only live on each dependent's host: Naemon walks the dependents
      // then, and swaps the two when it registers.
      const bool dependents_first = mh.empty() && mhg.empty() && msg.empty();
      const bool same_host = dependents_first || (dh.empty() && dhg.empty() && dsg.empty());
      IdSet outer_rejected;
      IdSet inner_rejected;
      const Ids outer = dependents_first ? service_set(dh, dhg, dsg, dd, outer_rejected)
                                         : service_set(mh, mhg, msg, md, outer_rejected);
      Ids inner;
      if (!same_host) inner = service_set(dh, dhg, dsg, dd, inner_rejected);
      const std::string_view inner_descriptions = dependents_first ? md : dd;
      IdSet outer_done = outer_rejected;
      for (std::uint32_t p : outer) {
        if (!outer_done.insert(p).second) continue;
        IdSet inner_done;
        if (same_host) inner = expand_services(m_.services[p].host_name, inner_descriptions, inner_done);
        for (std::uint32_t c : inner) {
          if (!inner_done.insert(c).second) continue;
          if (dependents_first)
            register_dependency(obj, d, c, p, order);
          else
            register_dependency(obj, d, p, c, order);
        }
      }
    }
    return order;
  }

  // Sorts `entries` by their object's place in Naemon's name order, then by the object's own list: newest
  // registration first (Naemon prepends), dependencies by kind before that.
  template <typename Entry, typename ObjectOf, typename KeyOf>
  static void sort_entries(std::vector<Entry>& entries, const std::vector<std::uint32_t>& defs,
                           const std::vector<Registration>& order, const Ids& name_rank, ObjectOf&& object_of,
                           KeyOf&& key_of) {
    std::unordered_map<Registration, std::uint32_t, RegistrationHash> position;
    for (std::uint32_t i = 0; i < order.size(); ++i) position.try_emplace(order[i], i);
    struct Keyed {
      std::uint32_t object_rank;
      std::uint8_t kind;
      std::int64_t list_rank;
      Entry entry;
    };
    std::vector<Keyed> keyed;
    keyed.reserve(entries.size());
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const Registration r = key_of(entries[i], defs[i]);
      auto it = position.find(r);
      // Not replayed: after the replayed ones, in model order.
      const std::int64_t list_rank = it == position.end() ? std::numeric_limits<std::int64_t>::max() - 1
                                                          : -static_cast<std::int64_t>(it->second);
      keyed.push_back({name_rank[object_of(entries[i])], r.kind, list_rank, std::move(entries[i])});
    }
    std::stable_sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
      if (a.object_rank != b.object_rank) return a.object_rank < b.object_rank;
      if (a.kind != b.kind) return a.kind > b.kind;  // execution (1) before notification (0)
      return a.list_rank < b.list_rank;
    });
    for (std::size_t i = 0; i < entries.size(); ++i) entries[i] = std::move(keyed[i].entry);
  }

  void order_escalations_and_dependencies() {
    const model::NameOrder& names = m_.by_name;
    Ids host_rank(m_.hosts.size()), service_rank(m_.services.size());
    for (std::uint32_t i = 0; i < names.hosts.size(); ++i) host_rank[model::index(names.hosts[i])] = i;
    for (std::uint32_t i = 0; i < names.services.size(); ++i)
      service_rank[model::index(names.services[i])] = i;

    sort_entries(
        m_.host_escalations, from_.host_escalations, host_escalation_order(), host_rank,
        [](const model::HostEscalation& e) { return model::index(e.host); },
        [](const model::HostEscalation& e, std::uint32_t d) {
          return Registration{d, model::index(e.host), 0, 0};
        });
    sort_entries(
        m_.service_escalations, from_.service_escalations, service_escalation_order(), service_rank,
        [](const model::ServiceEscalation& e) { return model::index(e.service); },
        [](const model::ServiceEscalation& e, std::uint32_t d) {
          return Registration{d, model::index(e.service), 0, 0};
        });
    sort_entries(
        m_.host_dependencies, from_.host_dependencies, host_dependency_order(), host_rank,
        [](const model::HostDependency& e) { return model::index(e.dependent); },
        [](const model::HostDependency& e, std::uint32_t d) {
          return Registration{d, model::index(e.dependent), model::index(e.master),
                              static_cast<std::uint8_t>(e.kind)};
        });
    sort_entries(
        m_.service_dependencies, from_.service_dependencies, service_dependency_order(), service_rank,
        [](const model::ServiceDependency& e) { return model::index(e.dependent); },
        [](const model::ServiceDependency& e, std::uint32_t d) {
          return Registration{d, model::index(e.dependent), model::index(e.master),
                              static_cast<std::uint8_t>(e.kind)};
        });
  }

  struct Node {
    const RawObject* def;
    std::uint32_t host;
    std::uint32_t service;  // the model service for this host and description; k_none if there is none
  };

  const ObjectStore& store_;
  const BuildOptions& options_;
  const BuiltFrom& from_;
  model::Model& m_;
  RegexCache regex_;
  IdMarks named_, rejected_;  // group_names()' scratch
  IdMarks taken_hosts_;       // duplicate_services()' scratch

  std::array<Ids, k_object_type_count> newest_first_;
  Ids host_of_def_, contact_of_def_;
  Kind hosts_, contacts_, hostgroups_, servicegroups_, contactgroups_;
  std::vector<Ids> hostgroup_members_;     // Naemon's member lists: newest first
  std::vector<Ids> servicegroup_members_;  // likewise
  std::vector<Node> service_list_;         // Naemon's service list after copying definitions per host
  std::vector<Ids> services_of_host_;      // services_of_host(): empty until first asked for
};

}  // namespace

void order_like_naemon(const ObjectStore& store, const BuildOptions& options, const BuiltFrom& from,
                       model::Model& model) {
  Replay(store, options, from, model).run();
}

}  // namespace vedette::config
