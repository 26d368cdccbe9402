#include "config/model_builder_internal.hpp"

namespace vedette::config::internal {

// Escalation contacts: `+list` adds to the object's own; none at all means the object's. A service's own
// are its host's when it names neither contacts nor contact groups (`contacts_from`, as in build_service):
// Naemon applies that inheritance to the service before the escalation inherits from it.
void ModelBuilder::escalation_contacts(const RawObject& esc, const RawObject& contacts_from,
                                       model::EscalationRule& rule, const std::string& owner) {
  const RawAttr* contacts = esc.find("contacts");
  const RawAttr* groups = esc.find("contact_groups");
  auto merged = [&](const RawAttr* own, DirectiveKey key) -> std::string {
    if (own == nullptr || own->is_null) return std::string(own == nullptr ? std::string_view{} : own->value);
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
model::EscalationRule ModelBuilder::escalation_rule(const RawObject& esc, const RawObject& target,
                                                    const RawObject* host, const OptionTable& table,
                                                    const std::string& owner) {
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

void ModelBuilder::build_host_escalations() {
  expand_each(
      ObjectType::hostescalation, model_->host_escalations, host_escalation_defs_, [&](const RawObject& obj) {
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

void ModelBuilder::build_service_escalations() {
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
          const std::string owner = fmt::format("serviceescalation '{};{}'", svc.host_name, svc.description);
          model_->service_escalations.push_back(
              {s, escalation_rule(obj, *service_raws_[model::index(s)], host_raws_[model::index(svc.host)],
                                  k_service_escalation_options, owner)});
        }
      });
}
}  // namespace vedette::config::internal
