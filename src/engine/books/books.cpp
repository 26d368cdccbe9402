#include "engine/books/books.hpp"

namespace vedette::engine {

std::optional<DowntimeTarget> find_target(const model::Model& model, bool service, std::string_view host_name,
                                          std::string_view service_description) {
  const auto host = model.host_by_name.find(host_name);
  if (host == model.host_by_name.end()) return std::nullopt;
  if (!service) return DowntimeTarget::of_host(host->second);
  const model::ServiceId s = model.find_service(host_name, service_description);
  if (!model::is_set(s)) return std::nullopt;
  return DowntimeTarget::of_service(host->second, s);
}

Books load_books(const model::Model& model, std::span<const state::Comment> comments,
                 unsigned long next_comment_id, std::span<const state::Downtime> downtimes,
                 unsigned long next_downtime_id, Time now, config::DateFormat date_format) {
  Books b;
  b.comments->set_next_comment_id(next_comment_id);
  b.comments->reserve(comments.size() + downtimes.size());
  for (const state::Comment& c : comments) {
    const std::optional<DowntimeTarget> t =
        find_target(model, c.is_service, c.host_name, c.service_description);
    if (!t) continue;
    if (t->is_service) {
      b.comments->add(t->service, c);
    } else {
      b.comments->add(t->host, c);
    }
  }
  b.downtimes->set_next_downtime_id(next_downtime_id);
  b.downtimes->reserve(downtimes.size());
  for (const state::Downtime& d : downtimes) {
    const std::optional<DowntimeTarget> t =
        find_target(model, d.is_service, d.host_name, d.service_description);
    if (!t) continue;
    const DowntimeAdded added = b.downtimes->load(*t, d);
    if (added.ok()) ensure_downtime_comment(*b.downtimes, *b.comments, added.downtime_id, now, date_format);
  }
  return b;
}

}  // namespace vedette::engine
