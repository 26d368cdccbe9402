#include "config/model_builder_internal.hpp"

#include <cstdio>

namespace vedette::config::internal {

template <typename Missing>
model::TimeperiodId ModelBuilder::period_attr(const RawObject& obj, DirectiveKey key, Missing&& missing) {
  std::string_view p = obj.get(key);
  if (p.empty()) return model::no_id<model::TimeperiodId>();
  model::TimeperiodId id = find_timeperiod(p);
  if (!model::is_set(id)) diags_.error(missing(p), obj.at);
  return id;
}

void ModelBuilder::coords(const RawObject& obj, model::Host& h) {
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

void ModelBuilder::build_hosts() {
  const std::size_t definitions = store_.of(ObjectType::host).size();
  model_->hosts.reserve(definitions);
  host_raws_.reserve(definitions);
  model_->host_by_name.reserve(definitions);  // growing it rehashed 100k names 17 times
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
      return fmt::format("Host check command '{}' specified for host '{}' is not defined anywhere!", n, name);
    });
    h.event_handler = make_call(obj.get("event_handler"), obj, [&](std::string_view n) {
      return fmt::format("Event handler command '{}' specified for host '{}' not defined anywhere", n, name);
    });
    h.check_period = period_attr(obj, "check_period", [&](std::string_view n) {
      return fmt::format("Failed to locate check_period '{}' for host '{}'!", n, name);
    });
    h.notification_period = period_attr(obj, "notification_period", [&](std::string_view n) {
      return fmt::format("Failed to locate notification_period '{}' for host '{}'!", n, name);
    });
    h.vrml_image = intern(obj.get("vrml_image"));
    h.statusmap_image = intern(obj.get("statusmap_image"));
    h.initial_state = initial_state(obj, /*host=*/true);
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
    IdMarks& parents = host_marks_;
    parents.start(model_->hosts.size());
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
      // Each host is resolved once, so a parent named once gets it as a child once: a scan of the children
      // made 100k hosts behind one router quadratic.
      if (!parents.insert(model::index(it->second))) continue;
      h.parents.push_back(it->second);
      model_->hosts[model::index(it->second)].children.push_back(model::HostId{i});
    }
  }
}

void ModelBuilder::check_host_values(const model::Host& h, const RawObject& obj) {
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

void ModelBuilder::merge_hostextinfo() {
  for_each_registered(ObjectType::hostextinfo, [&](const RawObject& obj) {
    bool ok = true;
    for (model::HostId id : host_set(obj.get("host_name"), obj.get("hostgroup_name"), obj, ok)) {
      model::Host& h = model_->hosts[model::index(id)];
      fill_from_extinfo(obj, h);
      fill_empty(h.vrml_image, obj, "vrml_image");
      fill_empty(h.statusmap_image, obj, "statusmap_image");
      if (!h.have_2d_coords && !h.have_3d_coords) coords(obj, h);
    }
  });
}

}  // namespace vedette::config::internal
