#include "engine/retained_status.hpp"

#include <algorithm>
#include <utility>

namespace vedette::engine {
namespace {

std::uint32_t depth_at(const std::vector<std::uint32_t>& depths, std::size_t index) {
  return index < depths.size() ? depths[index] : 0;
}

}  // namespace

RetainedStatus::RetainedStatus(const model::Model& model, std::shared_ptr<const retention::Carried> carried,
                               std::shared_ptr<const std::vector<state::Comment>> comments,
                               std::shared_ptr<const std::vector<state::Downtime>> downtimes,
                               std::shared_ptr<const std::vector<state::ContactState>> contacts)
    : model_(&model),
      source_(std::move(carried)),
      comments_(std::move(comments)),
      downtimes_(std::move(downtimes)),
      contacts_(std::move(contacts)) {
  if (source_ != nullptr && source_->model == model_) carried_ = source_.get();
  if (downtimes_ == nullptr) return;
  // Naemon's scheduled_downtime_depth: one per downtime in effect, on its own host or service only.
  for (const files::StatusDowntime& d : *downtimes_) {
    if (!d.is_in_effect) continue;
    if (d.is_service) {
      const model::ServiceId id = model.find_service(d.host_name, d.service_description);
      if (!model::is_set(id)) continue;
      service_depth_.resize(model.services.size());
      ++service_depth_[model::index(id)];
    } else {
      const auto it = model.host_by_name.find(d.host_name);
      if (it == model.host_by_name.end()) continue;
      host_depth_.resize(model.hosts.size());
      ++host_depth_[model::index(it->second)];
    }
  }
}

files::StatusObjectExtras RetainedStatus::host(std::size_t index, const files::StatusState& /*now*/) const {
  files::StatusObjectExtras x;
  x.scheduled_downtime_depth = static_cast<int>(depth_at(host_depth_, index));
  return x;
}

files::StatusObjectExtras RetainedStatus::service(std::size_t index,
                                                  const files::StatusState& /*now*/) const {
  files::StatusObjectExtras x;
  x.scheduled_downtime_depth = static_cast<int>(depth_at(service_depth_, index));
  return x;
}

files::StatusContactExtras RetainedStatus::contact(std::size_t index) const {
  if (contacts_ == nullptr || index >= contacts_->size()) return {};
  return {.state = &(*contacts_)[index]};
}

}  // namespace vedette::engine
