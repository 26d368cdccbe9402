// The comments and downtimes of a run, filled from lists keyed by object name (retention.dat's at start-up,
// the running core's at a reload) for one model: comments first, then downtimes, each with its comment.
// Those of objects the model does not have are dropped, as Naemon drops them. Any thread: the reload
// thread builds the books of a new configuration while the core runs, so the swap only moves them in.
#pragma once

#include "config/main_config.hpp"
#include "engine/books/comment_book.hpp"
#include "engine/books/downtime_book.hpp"
#include "model/model.hpp"

#include <memory>
#include <optional>
#include <span>
#include <string_view>

namespace vedette::engine {

struct Books {
  std::unique_ptr<CommentBook> comments = std::make_unique<CommentBook>();
  std::unique_ptr<DowntimeBook> downtimes = std::make_unique<DowntimeBook>();
};

[[nodiscard]] Books load_books(const model::Model& model, std::span<const state::Comment> comments,
                               unsigned long next_comment_id, std::span<const state::Downtime> downtimes,
                               unsigned long next_downtime_id, Time now, config::DateFormat date_format);

// The object a downtime (or comment) names, in `model`; nullopt when it has no such host or service.
[[nodiscard]] std::optional<DowntimeTarget> find_target(const model::Model& model, bool service,
                                                        std::string_view host_name,
                                                        std::string_view service_description);

}  // namespace vedette::engine
