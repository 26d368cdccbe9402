#include "config/model_builder_internal.hpp"

namespace vedette::config::internal {

// `*group_members`: a group contains the members of its subgroups, recursively. Each group is expanded
// once, after the groups it includes (a depth-first walk), and made sorted and unique there, so a chain of
// n groups costs what their members do: appending already expanded lists again doubled them per level.
// A group that includes itself, directly or through others, is an error, as in Naemon. Every group ends
// sorted and unique, so the members' own lists of their groups are filled without duplicate checks.
template <typename GroupId, typename Group, typename Index>
void ModelBuilder::expand_subgroups(const std::vector<const RawObject*>& raws, DirectiveKey key,
                                    std::vector<Group>& groups, const Index& by_name, std::string_view what) {
  std::vector<std::vector<std::uint32_t>> subgroups(groups.size());
  for (std::uint32_t g = 0; g < raws.size(); ++g) {
    for (std::string_view name : split_list(raws[g]->get(key))) {
      auto it = by_name.find(name);
      if (it == by_name.end()) {
        diags_.error(
            fmt::format("Could not find member group '{}' specified in {} '{}'", name, what, groups[g].name),
            raws[g]->at);
        continue;
      }
      subgroups[g].push_back(model::index(it->second));
    }
  }
  auto take_members = [&](std::uint32_t into, std::uint32_t from) {
    auto& members = groups[into].members;
    members.insert(members.end(), groups[from].members.begin(), groups[from].members.end());
  };
  walk_depth_first(
      groups.size(), std::views::iota(std::uint32_t{0}, static_cast<std::uint32_t>(groups.size())),
      [&](std::uint32_t g) -> const auto& { return subgroups[g]; },
      [&](std::uint32_t g, std::uint32_t sub, bool open) {
        if (!open) {
          take_members(g, sub);
          return;
        }
        diags_.error(fmt::format("{}s '{}' and '{}' are part of a {} include loop", what, groups[g].name,
                                 groups[sub].name, key.name),
                     raws[g]->at);
      },
      [&](std::uint32_t g, std::uint32_t parent) {
        sort_unique(groups[g].members);
        if (parent != k_no_parent) take_members(parent, g);
      });
}

// Host and service groups share their descriptive fields; members are each type's own business.
template <typename Group, typename Id>
std::vector<const RawObject*> ModelBuilder::register_groups(ObjectType type, DirectiveKey name_key,
                                                            std::unordered_map<std::string_view, Id>& by_name,
                                                            std::vector<Group>& groups,
                                                            std::string_view what) {
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

std::vector<std::string_view> ModelBuilder::split_excludes(std::string_view list) {
  std::vector<std::string_view> out;
  for (std::string_view item : split_list(list))
    if (item.front() == '!') out.push_back(item.substr(1));
  std::sort(out.begin(), out.end());
  return out;
}

void ModelBuilder::build_contactgroups() {
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
  // `members`: a contact a `!` rejects stays out, whatever else names it.
  IdMarks& rejected = contact_marks_;
  for (std::uint32_t g = 0; g < raws.size(); ++g) {
    const RawObject& obj = *raws[g];
    std::vector<model::ContactId> accepted;
    rejected.start(model_->contacts.size());
    expand_contacts(obj.get("members"), accepted, rejected, obj);
    for (model::ContactId c : accepted)
      if (!rejected.test(model::index(c))) model_->contactgroups[g].members.push_back(c);
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
      model_->contacts[model::index(c)].contactgroups.push_back(model::ContactgroupId{g});
  }
}

void ModelBuilder::build_hostgroups() {
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
      if (std::binary_search(excluded.begin(), excluded.end(), name)) continue;
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
      model_->hosts[model::index(h)].hostgroups.push_back(model::HostgroupId{g});
  }
}

void ModelBuilder::build_servicegroups() {
  servicegroup_raws_ = register_groups(ObjectType::servicegroup, "servicegroup_name",
                                       model_->servicegroup_by_name, model_->servicegroups, "servicegroup");
  const std::vector<const RawObject*>& raws = servicegroup_raws_;
  for (std::uint32_t g = 0; g < raws.size(); ++g) {
    const RawObject& obj = *raws[g];
    std::vector<std::string_view> items = split_list_vector(obj.get("members"));
    if (items.size() % 2 != 0) {
      diags_.error(
          fmt::format("Servicegroup '{}' members must be host,service pairs", model_->servicegroups[g].name),
          obj.at);
      continue;
    }
    bool ok = true;
    for (model::ServiceId s : services_of_pairs(items, obj, ok))
      model_->servicegroups[g].members.push_back(s);
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
            fmt::format("Could not find servicegroup '{}' specified in service '{}' on host '{}' definition",
                        name, model_->services[s].description, model_->services[s].host_name),
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
      model_->services[model::index(s)].servicegroups.push_back(model::ServicegroupId{g});
  }
}

}  // namespace vedette::config::internal
