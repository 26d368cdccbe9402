#include "config/model_builder_internal.hpp"

namespace vedette::config::internal {

void ModelBuilder::build_contacts() {
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
            "Service notification command '{}' specified for contact '{}' is not defined anywhere!", n, name);
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
}  // namespace vedette::config::internal
