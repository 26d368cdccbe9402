// status.dat's view of what retention.dat carried (retention::Carried, the comments and the downtimes):
// notification numbers and times, event and problem ids, flapping, scheduled_downtime_depth and the comment
// and downtime blocks, as Naemon's xsddefault.c writes them.
//
// Built on the core thread whenever the core replaces what it carries (start-up, reload), then immutable
// and shared by every status snapshot until the next replacement; read on the status writer thread:
//
//   if (retained == nullptr || !retained->built_from(*model_, carried))
//     retained = std::make_shared<const RetainedStatus>(*model_, carried, comments, downtimes);
//   status_writer.publish(status_snapshots.build(..., retained));
#pragma once

#include "files/status_file.hpp"
#include "model/model.hpp"
#include "retention/carried.hpp"
#include "state/contact_state.hpp"

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace vedette::engine {

class RetainedStatus final : public files::StatusExtras {
 public:
  // `comments` and `downtimes` are the engine's CommentBook and DowntimeBook snapshots (in Naemon's order),
  // for objects of `model`. A `carried` applied to another model is not used (its ids are not `model`'s).
  RetainedStatus(const model::Model& model, std::shared_ptr<const retention::Carried> carried,
                 std::shared_ptr<const std::vector<state::Comment>> comments,
                 std::shared_ptr<const std::vector<state::Downtime>> downtimes,
                 std::shared_ptr<const std::vector<state::ContactState>> contacts = {});

  // Whether this is what the core's current model, Carried, comments and downtimes give.
  [[nodiscard]] bool built_from(
      const model::Model& model, const std::shared_ptr<const retention::Carried>& carried,
      const std::shared_ptr<const std::vector<state::Comment>>& comments,
      const std::shared_ptr<const std::vector<state::Downtime>>& downtimes,
      const std::shared_ptr<const std::vector<state::ContactState>>& contacts) const {
    return model_ == &model && source_ == carried && comments_ == comments && downtimes_ == downtimes &&
           contacts_ == contacts;
  }

  [[nodiscard]] const model::Model* model() const override { return model_; }
  [[nodiscard]] files::StatusObjectExtras host(std::size_t index,
                                               const files::StatusState& now) const override;
  [[nodiscard]] files::StatusObjectExtras service(std::size_t index,
                                                  const files::StatusState& now) const override;
  [[nodiscard]] files::StatusContactExtras contact(std::size_t index) const override;
  [[nodiscard]] std::span<const files::StatusComment> comments() const override {
    return comments_ != nullptr ? std::span<const files::StatusComment>(*comments_)
                                : std::span<const files::StatusComment>();
  }
  [[nodiscard]] std::span<const files::StatusDowntime> downtimes() const override {
    return downtimes_ != nullptr ? std::span<const files::StatusDowntime>(*downtimes_)
                                 : std::span<const files::StatusDowntime>();
  }

 private:
  const model::Model* model_;
  std::shared_ptr<const retention::Carried> source_;  // held even when unused, so its address stays unique
  const retention::Carried* carried_ = nullptr;       // source_ when it belongs to model_
  std::shared_ptr<const std::vector<state::Comment>> comments_;
  std::shared_ptr<const std::vector<state::Downtime>> downtimes_;
  std::shared_ptr<const std::vector<state::ContactState>> contacts_;  // null: as configured
  // Downtimes in effect per object (Naemon's scheduled_downtime_depth); empty when there are none.
  std::vector<std::uint32_t> host_depth_;
  std::vector<std::uint32_t> service_depth_;
};

}  // namespace vedette::engine
