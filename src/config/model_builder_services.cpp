#include "config/model_builder_internal.hpp"

namespace vedette::config::internal {

namespace {

// The service instance each host has for a description. A host's few instances are scanned: hashing every
// (host, description) cost 15% more load time at 10k hosts x 10 services (bench/config/load_bench.py
// --sizes 100k). A host that gets more than k_scan_limit is looked up by hash: scanning made one host with
// 100k services take 73 s (--sizes 1host-100k).
class InstancesByHost {
 public:
  explicit InstancesByHost(std::size_t hosts) : listed_(hosts) {}

  // The instance of `host` whose description is `description`, or k_none; description_of(i) is instance
  // i's.
  template <typename DescriptionOf>
  std::uint32_t find(std::uint32_t host, std::string_view description, DescriptionOf&& description_of) const {
    const std::vector<std::uint32_t>& listed = listed_[host];
    if (listed.size() <= k_scan_limit) {
      for (std::uint32_t i : listed)
        if (description_of(i) == description) return i;
      return k_none;
    }
    const auto& hashed = hashed_.at(host);
    auto it = hashed.find(description);
    return it == hashed.end() ? k_none : it->second;
  }

  template <typename DescriptionOf>
  void add(std::uint32_t host, std::uint32_t instance, DescriptionOf&& description_of) {
    std::vector<std::uint32_t>& listed = listed_[host];
    listed.push_back(instance);
    if (listed.size() <= k_scan_limit) return;
    auto& hashed = hashed_[host];
    if (hashed.empty())
      for (std::uint32_t i : listed) hashed.emplace(description_of(i), i);
    else
      hashed.emplace(description_of(instance), instance);
  }

  static constexpr std::uint32_t k_none = model::k_no_id;

 private:
  static constexpr std::size_t k_scan_limit = 16;
  std::vector<std::vector<std::uint32_t>> listed_;
  std::unordered_map<std::uint32_t, std::unordered_map<std::string_view, std::uint32_t>> hashed_;
};

}  // namespace

void ModelBuilder::build_services() {
  std::vector<ServiceInstance> instances;
  InstancesByHost instance_of(model_->hosts.size());
  auto description_of = [&](std::uint32_t i) { return instances[i].description; };
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
      const std::uint32_t same = instance_of.find(model::index(h), desc, description_of);
      if (same == InstancesByHost::k_none) {
        instances.push_back({&obj, desc, h, from_group});
        instance_of.add(model::index(h), static_cast<std::uint32_t>(instances.size() - 1), description_of);
        return;
      }
      ServiceInstance& prev = instances[same];
      // A service on the host itself overrides one from a hostgroup; two of the same kind are a warning
      // and the first one stays, as in Naemon. The definition that lost still puts the service into its
      // `servicegroups` (Naemon keeps it in the list it takes those from).
      if (prev.from_hostgroup && !from_group) {
        lost_servicegroups_.push_back({same, prev.raw});
        prev = {&obj, desc, h, from_group};
      } else if (prev.from_hostgroup == from_group) {
        lost_servicegroups_.push_back({same, &obj});
        diags_.warning(fmt::format("Duplicate definition found for service '{}' on host '{}'", desc,
                                   model_->hosts[model::index(h)].name),
                       obj.at);
        diags_.warning(fmt::format("Already defined in config file '{}', starting on line {}",
                                   *prev.raw->at.file, prev.raw->at.line));
      }
    };
    for (model::HostId h : direct) add(h, /*from_group=*/false);
    for (model::HostId h : grouped) add(h, /*from_group=*/true);
  });
  instance_of = InstancesByHost(0);  // its memory serves the services below instead of adding to the peak
  // Reserved up front: growing a vector of 100k services by doubling moved 100 MB and doubled the peak.
  model_->services.reserve(instances.size());
  service_raws_.reserve(instances.size());
  for (const ServiceInstance& inst : instances) build_service(inst);
  // Every later lookup of a service by host and description (parents, groups, dependencies, escalations)
  // goes through this index.
  model_->index_services();
  for (std::uint32_t s = 0; s < model_->services.size(); ++s) resolve_service_parents(s);
}

const RawAttr* ModelBuilder::service_or_host(const RawObject& svc, const RawObject& host, DirectiveKey key) {
  if (const RawAttr* a = svc.find(key)) return a;
  return host.find(key);
}

void ModelBuilder::build_service(const ServiceInstance& inst) {
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
  s.initial_state = initial_state(obj, /*host=*/false);
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

void ModelBuilder::resolve_service_parents(std::uint32_t s) {
  const RawObject& obj = *service_raws_[s];
  std::string_view parents = obj.get("parents");
  if (parents.empty()) return;
  const model::HostId host = model_->services[s].host;
  std::vector<model::ServiceId> found;
  bool ok = true;
  if (parents.find(',') == std::string_view::npos) {
    model::ServiceId p = model_->find_service(host, trim(parents));
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
    found = services_of_pairs(items, obj, ok);
  }
  IdMarks& seen = service_marks_;
  seen.start(model_->services.size());
  for (model::ServiceId p : found) {
    if (!seen.insert(model::index(p))) continue;
    if (model::index(p) == s) {
      diags_.error(fmt::format("Service '{}' on host '{}' cannot be a parent of itself",
                               model_->services[s].description, model_->services[s].host_name),
                   obj.at);
      continue;
    }
    // Each service is resolved once and its parents are unique, so neither list can get a duplicate.
    model_->services[s].parents.push_back(p);
    model_->services[model::index(p)].children.push_back(model::ServiceId{s});
  }
}

void ModelBuilder::merge_serviceextinfo() {
  for_each_registered(ObjectType::serviceextinfo, [&](const RawObject& obj) {
    bool ok = true;
    for (model::HostId id : host_set(obj.get("host_name"), obj.get("hostgroup_name"), obj, ok)) {
      model::ServiceId sid =
          model_->find_service(model_->hosts[model::index(id)].name, obj.get("service_description"));
      if (!model::is_set(sid)) continue;
      fill_from_extinfo(obj, model_->services[model::index(sid)]);
    }
  });
}

}  // namespace vedette::config::internal
