#include "config/model_builder_internal.hpp"

#include <unordered_set>

namespace vedette::config::internal {

const regex_t* ModelBuilder::regex_for(std::string_view item, const RawObject& obj) {
  const regex_t* re = regex_.get(item);
  if (re == nullptr) diags_.error(fmt::format("Invalid regular expression '{}'", item), obj.at);
  return re;
}

bool ModelBuilder::wants_regex(std::string_view item) const {
  if (!options_.use_regexp_matches) return false;
  return options_.use_true_regexp_matching || item.find_first_of("*?+") != std::string_view::npos ||
         item.find("\\.") != std::string_view::npos;
}

bool ModelBuilder::expand_hosts(std::string_view list, std::vector<model::HostId>& accepted,
                                IdMarks& rejected, const RawObject& obj) {
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

bool ModelBuilder::expand_hostgroups(std::string_view list, std::vector<model::HostId>& accepted,
                                     IdMarks& rejected, const RawObject& obj) {
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

std::vector<model::HostId> ModelBuilder::host_set(std::string_view hosts, std::string_view hostgroups,
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

std::vector<model::ServiceId> ModelBuilder::services_on(model::HostId host, std::string_view descriptions,
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

std::vector<model::ServiceId> ModelBuilder::servicegroup_members(std::string_view groups,
                                                                 const RawObject& obj, bool& ok) {
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

std::vector<model::ServiceId> ModelBuilder::service_set(std::string_view hosts, std::string_view hostgroups,
                                                        std::string_view servicegroups,
                                                        std::string_view descriptions, const RawObject& obj,
                                                        bool& ok) {
  std::vector<model::ServiceId> out;
  if (!hosts.empty() || !hostgroups.empty()) {
    for (model::HostId h : host_set(hosts, hostgroups, obj, ok))
      for (model::ServiceId s : services_on(h, descriptions, obj, ok)) add_unique(out, s);
  }
  if (!servicegroups.empty())
    for (model::ServiceId s : servicegroup_members(servicegroups, obj, ok)) add_unique(out, s);
  return out;
}
}  // namespace vedette::config::internal
