#include "config/model_builder_internal.hpp"

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

template <typename NameOf, typename Index, typename Take>
bool ModelBuilder::expand_list(std::string_view list, std::string_view what, std::size_t count,
                               NameOf&& name_of, const Index& by_name, const RawObject& obj, Take&& take) {
  bool ok = true;
  for (std::string_view item : split_list(list)) {
    const bool reject = item.front() == '!';
    if (reject) item.remove_prefix(1);
    bool found = false;
    if (wants_regex(item)) {
      if (const regex_t* re = regex_for(item, obj)) {
        for (std::uint32_t i = 0; i < count; ++i)
          if (matches(re, name_of(i))) take(i, reject);
      }
      found = true;
    } else if (item == "*") {
      for (std::uint32_t i = 0; i < count; ++i) take(i, reject);
      found = true;
    } else if (auto it = by_name.find(item); it != by_name.end()) {
      take(model::index(it->second), reject);
      found = true;
    }
    if (!found) {
      diags_.error(fmt::format("Could not find any {} matching '{}'", what, item), obj.at);
      ok = false;
    }
  }
  return ok;
}

bool ModelBuilder::expand_hosts(std::string_view list, std::vector<model::HostId>& accepted,
                                IdMarks& rejected, const RawObject& obj) {
  // Service definitions name the same single host many times in a row (a host's services are written
  // together): the last single name found is remembered, as the hash lookup was mostly cache misses.
  if (model::is_set(last_host_.id) && list == last_host_.list) {
    accepted.push_back(last_host_.id);
    return true;
  }
  const std::size_t before = accepted.size();
  const bool ok = expand_list(
      list, "host", model_->hosts.size(), [&](std::uint32_t i) { return model_->hosts[i].name; },
      model_->host_by_name, obj,
      [&](std::uint32_t i, bool reject) {
        if (reject)
          rejected.set(i);
        else
          accepted.push_back(model::HostId{i});
      });
  const bool single_name =
      list.find_first_of(",!") == std::string_view::npos && list != "*" && !wants_regex(list);
  if (ok && single_name && accepted.size() == before + 1) last_host_ = {list, accepted.back()};
  return ok;
}

bool ModelBuilder::expand_hostgroups(std::string_view list, std::vector<model::HostId>& accepted,
                                     IdMarks& rejected, const RawObject& obj) {
  return expand_list(
      list, "hostgroup", model_->hostgroups.size(),
      [&](std::uint32_t i) { return model_->hostgroups[i].name; }, model_->hostgroup_by_name, obj,
      [&](std::uint32_t i, bool reject) {
        for (model::HostId h : model_->hostgroups[i].members) {
          if (reject)
            rejected.set(model::index(h));
          else
            accepted.push_back(h);
        }
      });
}

void ModelBuilder::expand_contacts(std::string_view list, std::vector<model::ContactId>& accepted,
                                   IdMarks& rejected, const RawObject& obj) {
  (void)expand_list(
      list, "contact", model_->contacts.size(), [&](std::uint32_t i) { return model_->contacts[i].name; },
      model_->contact_by_name, obj,
      [&](std::uint32_t i, bool reject) {
        if (reject)
          rejected.set(i);
        else
          accepted.push_back(model::ContactId{i});
      });
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
  IdMarks& taken = service_marks_;  // rejected, then also those already in the result
  taken.start(model_->services.size());
  for (std::string_view item : split_list(descriptions)) {
    const bool reject = item.front() == '!';
    if (reject) item.remove_prefix(1);
    // "*" (and ".*" when regular expressions are on) matches every service before any regex test, as in
    // Naemon; "*" is no valid regular expression.
    const bool any = item == "*" || (options_.use_regexp_matches && item == ".*");
    const bool regex = !any && wants_regex(item);
    auto take = [&](model::ServiceId s) {
      if (reject)
        taken.set(model::index(s));
      else
        accepted.push_back(s);
    };
    if (!any && !regex) {
      // A name: the host's index, not a scan (a chain of 200k dependencies on one host took 437 s).
      const model::ServiceId s = model_->find_service(host, item);
      if (model::is_set(s)) {
        take(s);
      } else if (!reject) {
        diags_.error(fmt::format("Could not find a service matching host name '{}' and description '{}'",
                                 model_->hosts[model::index(host)].name, item),
                     obj.at);
        ok = false;
      }
      continue;
    }
    const regex_t* re = regex ? regex_for(item, obj) : nullptr;
    for (model::ServiceId s : model_->hosts[model::index(host)].services) {
      std::string_view desc = model_->services[model::index(s)].description;
      if (any || (re != nullptr && matches(re, desc))) take(s);
    }
  }
  std::vector<model::ServiceId> out;
  for (model::ServiceId s : accepted)
    if (taken.insert(model::index(s))) out.push_back(s);
  return out;
}

std::vector<model::ServiceId> ModelBuilder::services_of_pairs(const std::vector<std::string_view>& items,
                                                              const RawObject& obj, bool& ok) {
  std::vector<model::ServiceId> out;
  for (std::size_t i = 0; i + 1 < items.size(); i += 2) {
    std::vector<model::HostId> hosts;
    IdMarks& rejected = host_marks_;
    rejected.start(model_->hosts.size());
    if (!expand_hosts(items[i], hosts, rejected, obj)) continue;
    for (model::HostId h : hosts)
      for (model::ServiceId s : services_on(h, items[i + 1], obj, ok)) out.push_back(s);
  }
  return out;
}

std::vector<model::ServiceId> ModelBuilder::service_set(std::string_view hosts, std::string_view hostgroups,
                                                        std::string_view servicegroups,
                                                        std::string_view descriptions, const RawObject& obj,
                                                        bool& ok) {
  std::vector<model::ServiceId> out;
  IdMarks& in = service_set_marks_;
  in.start(model_->services.size());
  auto add = [&](model::ServiceId s) {
    if (in.insert(model::index(s))) out.push_back(s);
  };
  if (!hosts.empty() || !hostgroups.empty()) {
    for (model::HostId h : host_set(hosts, hostgroups, obj, ok))
      for (model::ServiceId s : services_on(h, descriptions, obj, ok)) add(s);
  }
  for (std::string_view name : split_list(servicegroups)) {
    auto it = model_->servicegroup_by_name.find(name);
    if (it == model_->servicegroup_by_name.end()) {
      diags_.error(fmt::format("Could not find any servicegroup matching '{}'", name), obj.at);
      ok = false;
      continue;
    }
    for (model::ServiceId s : model_->servicegroups[model::index(it->second)].members) add(s);
  }
  return out;
}
}  // namespace vedette::config::internal
