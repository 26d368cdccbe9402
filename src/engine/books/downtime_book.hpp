// DowntimeBook: every scheduled host and service downtime and Naemon's state machine for them (downtime.c):
// fixed, flexible and triggered downtimes, their start/stop/expiry timers, cancellation cascades and
// scheduled_downtime_depth per object. No I/O and no clock: every time-dependent call takes `now`, and what
// happened comes back as DowntimeEvents that the core turns into log lines, comments and notifications.
// Owned by the core; core thread only, except that a snapshot() result may be read by any thread.
//
//   DowntimeAdded added = downtimes.schedule(target, request, now);  // SCHEDULE_SVC_DOWNTIME
//   if (added.ok()) ensure_downtime_comment(downtimes, comments, added.downtime_id, now, date_format);
//   std::size_t armed = downtimes.on_problem(service, now);  // it went non-OK: flexible ones arm
//   for (const DowntimeEvent& e : downtimes.advance(now, phase_us)) apply(e);  // at next_event()
//
// Cost: lookup by id O(1) (NaemonIdTable); schedule, start, stop and delete O(log n) (binary heaps);
// per-object queries touch that object's downtimes only; snapshot() O(n log n), and only after a change.
// bench/downtimes/downtime_book_bench.cpp has the figures at 300,000 downtimes.
#pragma once

#include "engine/books/comment_book.hpp"
#include "model/ids.hpp"
#include "state/comments.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace vedette::config {
enum class DateFormat;
}

namespace vedette::engine {

// The object of a downtime. A service downtime carries its host as well, for the per-host queries.
struct DowntimeTarget {
  bool is_service = false;
  model::HostId host = model::no_id<model::HostId>();
  model::ServiceId service = model::no_id<model::ServiceId>();

  [[nodiscard]] static DowntimeTarget of_host(model::HostId host) {
    return {false, host, model::no_id<model::ServiceId>()};
  }
  [[nodiscard]] static DowntimeTarget of_service(model::HostId host, model::ServiceId service) {
    return {true, host, service};
  }
};

// One transition, in the order Naemon goes through them. Every kind except `started` means the downtime is
// gone from the book: the core deletes its comment (downtime.comment_id), as Naemon's delete_downtime does.
struct DowntimeEvent {
  enum class Kind : std::uint8_t {
    started,  // handle_scheduled_downtime_start: now in effect
    stopped,  // ended: at end_time (fixed) or flex_downtime_start + duration (flexible), or with its trigger
    cancelled,  // DEL_*_DOWNTIME, a DEL_DOWNTIME_BY_* filter, or the cancellation of its trigger
    expired,    // never started and its end_time passed (check_for_expired_downtime)
  };
  Kind kind = Kind::started;
  // Naemon logs downtime_alert_text(): on start when the object's depth was 0, on stop and cancel when it
  // drops to 0 (a cancelled downtime that was not in effect: never). Never for `expired`.
  bool alert = false;
  // Naemon calls host_notification/service_notification: started -> DOWNTIMESTART (once per downtime:
  // start_notification_sent), stopped and expired -> DOWNTIMEEND (with the downtime's author and comment),
  // cancelled -> DOWNTIMECANCELLED (no author or comment). Started/stopped/cancelled notify exactly when
  // they alert; expired always notifies.
  bool notify = false;
  // The object's scheduled_downtime_depth at the moment Naemon notifies: the notification's viability test
  // drops a service's downtime notification while it is > 0 (only possible for `expired`).
  int depth = 0;
  // Its host's depth at that moment (for a host downtime, `depth`): a service's DOWNTIMEEND in the same
  // second as its host's shows $HOSTDOWNTIME$ as it was before or after the host's, in Naemon's order.
  int host_depth = 0;
  DowntimeTarget target;
  state::Downtime downtime;  // as it was at the event
};

enum class DowntimeError : std::uint8_t {
  none,
  bad_times,         // schedule: start_time >= end_time or end_time <= now; load: start >= end, not triggered
  unknown_trigger,   // triggered_by names no downtime (Naemon: "Triggering downtime not found")
  no_duration,       // flexible with duration 0
  id_in_use,         // load: a second downtime with the same id
  trigger_too_deep,  // its trigger is itself triggered k_max_trigger_chain levels deep
};

struct DowntimeAdded {
  unsigned long downtime_id = 0;
  DowntimeError error = DowntimeError::none;
  [[nodiscard]] bool ok() const { return error == DowntimeError::none; }
};

// DEL_HOST_DOWNTIME only deletes host downtimes, DEL_SVC_DOWNTIME service downtimes.
enum class DowntimeType : std::uint8_t { any, host, service };

// DEL_DOWNTIME_BY_HOST_NAME / _BY_HOSTGROUP_NAME (once per member host, resolved by the core) /
// _BY_START_TIME_COMMENT. Unset fields match everything; with no field set nothing matches.
struct DowntimeFilter {
  // The `{}`s let designated initializers leave fields out (-Wmissing-field-initializers).
  std::optional<model::HostId> host{};               // host downtimes of it and downtimes of its services
  std::optional<std::string> service_description{};  // service downtimes only (on any host unless `host`)
  Time start_time = 0;                               // 0: any
  std::optional<std::string> comment{};              // the downtime's comment, exactly
};

struct DowntimeRemoval {
  std::size_t matched = 0;  // Naemon's count (the DEL_DOWNTIME_BY_* commands fail when it is 0)
  std::vector<DowntimeEvent> events;
};

class DowntimeBook {
 public:
  // How long a chain of triggered downtimes may be. Starting, stopping and cancelling a downtime goes on to
  // what it triggered, recursively (as Naemon's, which a chain of a million commands crashes); a deeper one
  // is refused (trigger_too_deep: "External command failed", or a retention.dat warning).
  static constexpr std::uint32_t k_max_trigger_chain = 1000;

  DowntimeBook() = default;
  DowntimeBook(const DowntimeBook&) = delete;
  DowntimeBook& operator=(const DowntimeBook&) = delete;

  // schedule_downtime + register_downtime. `request` gives entry_time, start/end_time, fixed, duration
  // (the commands pass end - start for fixed ones), triggered_by, author, comment and the names; its id,
  // comment_id, flex_downtime_start, is_in_effect and start_notification_sent are ignored. Arms the start
  // (fixed, not triggered: at start_time, which may be now) or the expiry (flexible: end_time + 1).
  // Failed validation after the id was taken leaves the id used, as in Naemon (next_downtime_id moves).
  // `phase_us`: the microseconds past `now` when it is scheduled. Naemon's timed events keep that fraction of
  // a second (it schedules them `end_time - now` seconds from the current timeval), so events due in the
  // same second run in the order of their phases; this book keeps Naemon's order.
  DowntimeAdded schedule(DowntimeTarget target, state::Downtime request, Time now,
                         std::uint32_t phase_us = 0);

  // A retention.dat record, in file order after the comments (Naemon's xrddefault.c + register_downtime):
  // kept as read (id, is_in_effect, flex_downtime_start, start_notification_sent, comment_id); one in
  // effect counts in its object's depth and gets its stop timer (a stop already due happens at the first
  // advance(): STOPPED and DOWNTIMEEND then). A pending fixed one gets its start timer (a past start_time
  // starts it at the first advance()), a pending triggered fixed one waits for its trigger, a pending
  // flexible one its expiry and, when it had been armed (flex_downtime_start set), its start timer. A record
  // triggered by a downtime not loaded before it is refused, as Naemon refuses it. The loaded ones keep, at
  // equal list position, the reverse of their file order (Naemon prepends them and then sorts stably).
  DowntimeAdded load(DowntimeTarget target, state::Downtime record);

  // check_pending_flex_host_downtime / _service_downtime, for an object that just changed into a
  // non-OK/non-UP state (the caller checks the state; Naemon: hosts on every state change, hard or soft,
  // services on reaching a hard problem state). Arms every pending, untriggered flexible downtime of this
  // very object whose window [start_time, end_time] holds `now`: flex_downtime_start = now and a start timer
  // at now, so the downtime starts at the next advance(). Returns how many were armed; Naemon sends the
  // problem notification only when that is 0.
  std::size_t on_problem(model::HostId host, Time now, std::uint32_t phase_us = 0);
  std::size_t on_problem(model::ServiceId service, Time now, std::uint32_t phase_us = 0);

  // When the earliest armed start, stop or expiry is due, if any: its second and the microseconds into it
  // (its downtime's phase: Naemon runs the event that late in the second). The core's timer.
  struct Due {
    Time at;
    std::uint32_t phase_us;
  };
  [[nodiscard]] std::optional<Due> next_event() const;
  // Runs every start, stop and expiry due by `phase_us` microseconds into second `now` (by default: all of
  // it), in time order (in a second: by phase, then in the order they were armed), including those their
  // own transitions make due.
  static constexpr std::uint32_t k_whole_second = 999'999;
  std::vector<DowntimeEvent> advance(Time now, std::uint32_t phase_us = k_whole_second);

  // DEL_HOST_DOWNTIME / DEL_SVC_DOWNTIME (unschedule_downtime): removes the downtime, then every downtime
  // triggered by it, recursively, in effect or not. matched is 0 when no downtime of that type has that id.
  DowntimeRemoval unschedule(unsigned long downtime_id, DowntimeType type = DowntimeType::any);
  // Naemon's delete_downtime_by_hostname_service_description_start_time_comment: matches in list order, then
  // unschedules the matches in reverse (each with its cascade). Cost: the host's downtimes with `host`,
  // otherwise a pass over all (as in Naemon; these commands are rare).
  DowntimeRemoval delete_matching(const DowntimeFilter& filter);

  [[nodiscard]] const state::Downtime* find(unsigned long downtime_id) const;
  [[nodiscard]] std::optional<DowntimeTarget> target_of(unsigned long downtime_id) const;
  bool set_comment_id(unsigned long downtime_id, unsigned long comment_id);  // false when no such downtime
  [[nodiscard]] std::size_t size() const { return by_id_.size(); }

  // scheduled_downtime_depth: the downtimes in effect on this very object (a host's do not count for its
  // services; Naemon's notification tests look at both). Inline: every status snapshot reads it per object.
  [[nodiscard]] int depth(model::HostId host) const {
    const std::uint32_t index = model::index(host);
    return index < host_depth_.size() ? host_depth_[index] : 0;
  }
  [[nodiscard]] int depth(model::ServiceId service) const {
    const std::uint32_t index = model::index(service);
    return index < service_depth_.size() ? service_depth_[index] : 0;
  }

  // Ids in list order. ids_of(host): the host's own downtimes; ids_on_host: those and its services'.
  [[nodiscard]] std::vector<unsigned long> ids_of(model::HostId host) const;
  [[nodiscard]] std::vector<unsigned long> ids_of(model::ServiceId service) const;
  [[nodiscard]] std::vector<unsigned long> ids_on_host(model::HostId host) const;

  // The counter Naemon writes as next_downtime_id. set_next_downtime_id() takes retention.dat's value as is,
  // before the downtimes are loaded (a loaded id moves the counter past it).
  [[nodiscard]] unsigned long next_downtime_id() const { return next_downtime_id_; }
  void set_next_downtime_id(unsigned long id) { next_downtime_id_ = id; }

  void clear();                         // every downtime, timer and depth; the counter stays
  void reserve(std::size_t downtimes);  // e.g. before loading retention.dat's downtimes (no reallocation)

  // Every downtime in Naemon's scheduled_downtime_list order, the order of status.dat and retention.dat:
  // by start_time; at equal start_time those not triggered before the triggered ones; then in the order they
  // were added (loaded ones: reverse file order). Rebuilt only when something changed since the last call.
  [[nodiscard]] std::shared_ptr<const std::vector<state::Downtime>> snapshot() const;
  [[nodiscard]] std::uint64_t version() const { return version_; }
  // Changes whenever a depth may have (the snapshot builder reads the depths again only then).
  [[nodiscard]] std::uint64_t depth_version() const { return depth_version_; }

  // Lists, indexes, timers and depths agree with the records.
  [[nodiscard]] bool check_invariants() const;

 private:
  static constexpr std::uint32_t k_none = UINT32_MAX;

  // Timers and pending ends live in binary heaps with lazy deletion: a cancelled timer stays in the heap
  // and is skipped when it comes up (its token no longer matches), and a heap is compacted when it holds
  // more dead entries than live ones. Three std::sets in their place (one cache miss per tree level on
  // every insert) made BM_Load at 300k take 3.6-4.1 s of CPU instead of 1.0-1.7 s (shared 2-core VM).
  enum class TimerKind : std::uint8_t { start, stop, expiry };
  struct Timer {
    Time at;
    std::uint32_t phase_us;  // its downtime's phase (schedule())
    std::uint64_t token;     // unique, in arming order: the last tie-break
    TimerKind kind;
    unsigned long downtime_id;  // expiry: the downtime that armed it (the sweep itself covers all)
  };
  struct PendingEnd {
    Time end_time;
    unsigned long downtime_id;
    std::uint32_t slot;
  };

  // Position in scheduled_downtime_list (Naemon's downtime_compar, ties by insertion).
  struct ListKey {
    Time start_time;
    bool triggered;
    std::int64_t seq;
    std::uint32_t slot;
    auto operator<=>(const ListKey& other) const = default;
  };

  struct Link {
    std::uint32_t prev = k_none, next = k_none;
  };
  struct Entry {
    state::Downtime d;
    DowntimeTarget target;
    std::int64_t seq = 0;
    std::uint32_t phase_us = 0;     // every timer of the downtime has it (Naemon: start, stop and expiry)
    Link object_link;               // host downtimes of its host, or downtimes of its service
    Link host_link;                 // every downtime on its host
    Link trigger_link;              // downtimes with the same triggered_by (nonzero)
    std::uint64_t start_token = 0;  // its armed start timer, 0 when none
    std::uint64_t stop_token = 0;   // its stop timer, or (pending flexible) its expiry sweep
    bool stop_is_expiry = false;
    bool live = false;
    bool busy = false;        // inside its own start/stop: cascades skip it (guards against trigger cycles)
    std::uint32_t chain = 0;  // how many triggers above it, as they were when it was added
  };
  enum class Removal : std::uint8_t {
    destroy_timers,  // unschedule_downtime destroys the downtime's events
    orphan_expiry,   // delete_downtime leaves them: an armed expiry sweep still runs for the others
  };

  DowntimeAdded insert(DowntimeTarget target, state::Downtime&& record, std::int64_t seq,
                       std::uint32_t phase_us);
  // The chain a downtime triggered by `trigger_id` would have.
  [[nodiscard]] std::uint32_t chain_below(unsigned long trigger_id) const;
  void arm_timers(std::uint32_t slot);
  std::uint64_t add_timer(Time at, const Entry& e, TimerKind kind);
  void cancel_timer(std::uint64_t& token);  // start or stop
  void drop_expiry(Entry& e, Removal how);
  [[nodiscard]] bool is_live(const Timer& timer) const;
  void settle_timers();  // drops dead timers from the top; compacts the heaps when mostly dead
  void start(std::uint32_t slot, Time now, std::vector<DowntimeEvent>& events);
  void stop(std::uint32_t slot, Time now, std::vector<DowntimeEvent>& events);
  void handle(std::uint32_t slot, Time now, std::vector<DowntimeEvent>& events);  // start or stop
  void cancel(std::uint32_t slot, std::vector<DowntimeEvent>& events);
  void expire_pending(Time now, std::vector<DowntimeEvent>& events);
  void remove(std::uint32_t slot, Removal how);
  std::size_t arm_flexible(std::uint32_t head, Time now, std::uint32_t phase_us);
  void push_event(std::vector<DowntimeEvent>& events, DowntimeEvent::Kind kind, bool alert, bool notify,
                  int depth, const Entry& e) const;

  [[nodiscard]] ListKey list_key(std::uint32_t slot) const;
  [[nodiscard]] std::vector<std::uint32_t> in_list_order(std::vector<std::uint32_t> slots) const;
  [[nodiscard]] std::vector<std::uint32_t> live_slots() const;
  [[nodiscard]] std::vector<std::uint32_t> children_of(unsigned long downtime_id) const;
  [[nodiscard]] std::vector<std::uint32_t> collect(std::uint32_t head, Link Entry::*link) const;
  [[nodiscard]] std::vector<unsigned long> ids_in_order(std::uint32_t head, Link Entry::*link) const;
  [[nodiscard]] const std::uint32_t* slot_of(unsigned long downtime_id) const {
    return by_id_.find(downtime_id);
  }
  int& depth_of(const DowntimeTarget& target);
  [[nodiscard]] std::uint32_t& object_head(const DowntimeTarget& target);
  [[nodiscard]] std::uint32_t& host_head(model::HostId host);
  void link(std::uint32_t& head, std::uint32_t slot, Link Entry::*link);
  void unlink(std::uint32_t& head, std::uint32_t slot, Link Entry::*link);
  [[nodiscard]] static std::uint32_t head_at(const std::vector<std::uint32_t>& heads, std::uint32_t index) {
    return index < heads.size() ? heads[index] : k_none;
  }
  void changed() { ++version_; }

  std::vector<Entry> entries_;
  std::vector<std::uint32_t> free_slots_;
  NaemonIdTable by_id_;                                   // downtime_id -> slot (Naemon's dt_hashtable)
  std::vector<Timer> timers_;                             // min-heap by (at, token)
  std::size_t dead_timers_ = 0;                           // cancelled entries still in timers_
  std::unordered_set<std::uint64_t> cancelled_expiries_;  // tokens of destroyed expiry sweeps in timers_
  std::vector<PendingEnd> pending_;  // min-heap by end_time of downtimes not in effect (lazily pruned)
  std::size_t pending_count_ = 0;    // live downtimes not in effect
  std::vector<std::uint32_t> host_object_heads_;  // HostId index -> host downtimes
  std::vector<std::uint32_t> service_object_heads_;
  std::vector<std::uint32_t> host_heads_;  // HostId index -> every downtime on the host
  std::unordered_map<unsigned long, std::uint32_t> trigger_heads_;  // triggered_by -> downtimes it triggers
  std::vector<int> host_depth_;
  std::vector<int> service_depth_;
  unsigned long next_downtime_id_ = 1;
  std::int64_t next_seq_ = 0;       // scheduled: after every downtime at the same list position
  std::int64_t next_load_seq_ = 0;  // loaded: before the earlier loaded ones
  std::uint64_t next_token_ = 1;
  std::uint64_t version_ = 0;
  std::uint64_t depth_version_ = 0;
  mutable SnapshotBuffers<state::Downtime> snapshots_;
};

// The texts Naemon writes. The comment register_downtime adds for a downtime:
//   "This host has been scheduled for fixed downtime from 05-20-2024 10:00:00 to 05-20-2024 12:00:00.  ..."
// with Naemon's short date/time for `format` in local time (two spaces after the first sentence).
[[nodiscard]] std::string downtime_comment_text(const state::Downtime& downtime, config::DateFormat format);
// The log line for an event with alert set (naemon.log, as an info message; "" for `expired`), e.g.
//   "SERVICE DOWNTIME ALERT: web01;HTTP;STARTED; Service has entered a period of scheduled downtime".
[[nodiscard]] std::string downtime_alert_text(DowntimeEvent::Kind kind, const state::Downtime& downtime);

// register_downtime's comment step, for a downtime just scheduled or loaded: unless its comment_id names an
// existing comment (retention.dat keeps downtime comments), adds Naemon's comment (entry type downtime,
// internal, not persistent, entered `now`, the downtime's author) and records its id in the downtime.
// Returns the comment id, 0 when there is no such downtime.
unsigned long ensure_downtime_comment(DowntimeBook& downtimes, CommentBook& comments,
                                      unsigned long downtime_id, Time now, config::DateFormat format);

}  // namespace vedette::engine
