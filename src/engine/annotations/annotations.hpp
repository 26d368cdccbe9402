// What admins attach to hosts and services: acknowledgements, comments and downtimes, as Naemon's external
// commands and its downtime and acknowledgement-expiry events handle them. Keeps the two timers of its
// own (the next downtime event, the next expiring acknowledgement); the comment and downtime books live in
// the World, since status.dat, retention.dat, macros and notifications read them too. Core thread only.
//
//   Annotations annotations(world, notifier);
//   annotations.acknowledge(check, {.sticky = true, .author = "alice", .comment = "on it"});
//   const unsigned long id = annotations.schedule_downtime(check, request);  // 0: Naemon refuses it
#pragma once

#include "engine/books/books.hpp"
#include "engine/state/check_id.hpp"
#include "engine/state/core_requests.hpp"
#include "engine/world/world.hpp"
#include "loop/loop.hpp"

#include <cstddef>
#include <map>
#include <vector>

namespace vedette::engine {

class Notifier;

class Annotations final : public loop::TimerHandler {
 public:
  Annotations(World& world, Notifier& notifier);
  ~Annotations();
  Annotations(const Annotations&) = delete;
  Annotations& operator=(const Annotations&) = delete;

  // ACKNOWLEDGE_*_PROBLEM(_EXPIRE): as Naemon, an object that is OK/UP has no problem to acknowledge, and
  // an end time already past changes nothing.
  void acknowledge(CheckId check, const Acknowledgement& ack);
  // REMOVE_*_ACKNOWLEDGEMENT, an expiry: the acknowledgement ends, with its non-persistent comments.
  void remove_acknowledgement(CheckId check);
  // A state change ended the acknowledgement (the state machine cleared it): its comments go.
  void acknowledgement_ended(CheckId check);

  void add_comment(CheckId check, const UserComment& comment);
  // A comment on the check's object, with the object's names filled in; its id.
  unsigned long add_comment_to(CheckId check, state::Comment comment);
  // DEL_*_COMMENT: false when there is no comment of that kind with that id.
  bool delete_comment(ObjectKind kind, unsigned long comment_id);
  void delete_all_comments(CheckId check);

  // SCHEDULE_*_DOWNTIME with its comment: the new id, or 0 when Naemon refuses it.
  unsigned long schedule_downtime(CheckId check, const DowntimeRequest& request);
  // SCHEDULE_AND_PROPAGATE_(TRIGGERED_)HOST_DOWNTIME: the host's, then each host below it (each host's
  // children before it, children in name order), triggered by the host's when `triggered`.
  void schedule_propagated_downtime(model::HostId host, const DowntimeRequest& request, bool triggered);
  bool delete_downtime(ObjectKind kind, unsigned long downtime_id);
  std::size_t delete_downtimes(const DowntimeFilter& filter);
  // Naemon's check_pending_flex_*_downtime: a problem starts the flexible downtimes waiting for one. How
  // many it started.
  std::size_t flexible_downtimes_on_problem(CheckId check, Time now);

  // Start-up, READ_STATE_INFORMATION, a reload: comments and downtimes by name for the current model.
  void adopt_books(Books books);
  // The same times: the expiring acknowledgements the hot state holds, by the current ids.
  void collect_acknowledgement_expiry();

  void on_timer(loop::TimerId id) override;

 private:
  void add_acknowledgement_comment(CheckId check, const Acknowledgement& ack, Time now);
  void expire_acknowledgement_at(CheckId check, Time end_time);
  void expire_acknowledgements();
  void arm_downtime_timer();
  void run_downtime_events(const std::vector<DowntimeEvent>& events);
  DowntimeTarget target_of(CheckId check) const;

  World& w_;
  Notifier& notifier_;
  loop::TimerId ack_timer_;  // added before downtime_timer_: at the same instant an expiry runs first
  loop::TimerId downtime_timer_;
  std::multimap<Time, CheckId> ack_expiry_;  // end time -> check of an expiring acknowledgement
};

}  // namespace vedette::engine
