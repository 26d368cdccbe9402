#include "config/model_builder_internal.hpp"

namespace vedette::config::internal {

void ModelBuilder::preflight() {
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
      diags_.error(fmt::format("Contact '{}' has no service notification commands defined!", c.name), obj.at);
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

template <typename Edges>
void ModelBuilder::find_cycles(std::size_t count, Edges&& edges,
                               const std::function<void(std::uint32_t, std::uint32_t)>& report) {
  walk_depth_first(
      count, std::views::iota(std::uint32_t{0}, static_cast<std::uint32_t>(count)), edges,
      [&](std::uint32_t from, std::uint32_t to, bool open) {
        if (open) report(from, to);
      },
      [](std::uint32_t, std::uint32_t) {});
}

void ModelBuilder::check_parent_cycles() {
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

void ModelBuilder::check_dependency_cycles() {
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

void ModelBuilder::check_exclusion_cycles() {
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
}  // namespace vedette::config::internal
