#include "engine/books/downtime_book.hpp"

#include "config/main_config.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace vedette::engine {
namespace {

// `t` plus `seconds`, saturated: an external command may give any 64-bit end time and duration.
Time later(Time t, std::uint64_t seconds) {
  Time sum = 0;
  if (seconds > static_cast<std::uint64_t>(std::numeric_limits<Time>::max()) ||
      __builtin_add_overflow(t, static_cast<Time>(seconds), &sum))
    return std::numeric_limits<Time>::max();
  return sum;
}

// When an in-effect downtime ends: its end_time if fixed, else flex_downtime_start + duration (which Naemon
// does not clip to end_time).
Time stop_time_of(const state::Downtime& d) {
  return d.fixed ? d.end_time : later(d.flex_downtime_start, d.duration);
}

}  // namespace

// ---- lists and indexes

int& DowntimeBook::depth_of(const DowntimeTarget& target) {
  ++depth_version_;
  std::vector<int>& depths = target.is_service ? service_depth_ : host_depth_;
  const std::uint32_t index = target.is_service ? model::index(target.service) : model::index(target.host);
  if (index >= depths.size()) depths.resize(static_cast<std::size_t>(index) + 1, 0);
  return depths[index];
}

std::uint32_t& DowntimeBook::object_head(const DowntimeTarget& target) {
  std::vector<std::uint32_t>& heads = target.is_service ? service_object_heads_ : host_object_heads_;
  const std::uint32_t index = target.is_service ? model::index(target.service) : model::index(target.host);
  if (index >= heads.size()) heads.resize(static_cast<std::size_t>(index) + 1, k_none);
  return heads[index];
}

std::uint32_t& DowntimeBook::host_head(model::HostId host) {
  const std::uint32_t index = model::index(host);
  if (index >= host_heads_.size()) host_heads_.resize(static_cast<std::size_t>(index) + 1, k_none);
  return host_heads_[index];
}

void DowntimeBook::link(std::uint32_t& head, std::uint32_t slot, Link Entry::*link) {
  Link& l = entries_[slot].*link;
  l.prev = k_none;
  l.next = head;
  if (head != k_none) (entries_[head].*link).prev = slot;
  head = slot;
}

void DowntimeBook::unlink(std::uint32_t& head, std::uint32_t slot, Link Entry::*link) {
  Link& l = entries_[slot].*link;
  if (l.prev != k_none)
    (entries_[l.prev].*link).next = l.next;
  else
    head = l.next;
  if (l.next != k_none) (entries_[l.next].*link).prev = l.prev;
  l = Link{};
}

std::vector<std::uint32_t> DowntimeBook::collect(std::uint32_t head, Link Entry::*link) const {
  std::vector<std::uint32_t> slots;
  for (std::uint32_t slot = head; slot != k_none; slot = (entries_[slot].*link).next) slots.push_back(slot);
  return slots;
}

DowntimeBook::ListKey DowntimeBook::list_key(std::uint32_t slot) const {
  const Entry& e = entries_[slot];
  return {e.d.start_time, e.d.triggered_by != 0, e.seq, slot};
}

std::vector<std::uint32_t> DowntimeBook::live_slots() const {
  std::vector<std::uint32_t> slots;
  slots.reserve(by_id_.size());
  for (std::uint32_t slot = 0; slot < entries_.size(); ++slot)
    if (entries_[slot].live) slots.push_back(slot);
  return slots;
}

std::vector<std::uint32_t> DowntimeBook::in_list_order(std::vector<std::uint32_t> slots) const {
  std::sort(slots.begin(), slots.end(),
            [&](std::uint32_t a, std::uint32_t b) { return list_key(a) < list_key(b); });
  return slots;
}

std::vector<std::uint32_t> DowntimeBook::children_of(unsigned long downtime_id) const {
  const auto it = trigger_heads_.find(downtime_id);
  if (it == trigger_heads_.end()) return {};
  return in_list_order(collect(it->second, &Entry::trigger_link));
}

std::vector<unsigned long> DowntimeBook::ids_in_order(std::uint32_t head, Link Entry::*link) const {
  std::vector<unsigned long> ids;
  for (const std::uint32_t slot : in_list_order(collect(head, link)))
    ids.push_back(entries_[slot].d.downtime_id);
  return ids;
}

// ---- timers

namespace {
// Heap order: the earliest first; in the same second by phase, then the one armed first.
template <class T>
bool later(const T& a, const T& b) {
  if (a.at != b.at) return a.at > b.at;
  if (a.phase_us != b.phase_us) return a.phase_us > b.phase_us;
  return a.token > b.token;
}
}  // namespace

std::uint64_t DowntimeBook::add_timer(Time at, const Entry& e, TimerKind kind) {
  const std::uint64_t token = next_token_++;
  timers_.push_back(Timer{at, e.phase_us, token, kind, e.d.downtime_id});
  std::push_heap(timers_.begin(), timers_.end(), later<Timer>);
  return token;
}

void DowntimeBook::cancel_timer(std::uint64_t& token) {
  if (token == 0) return;
  ++dead_timers_;
  token = 0;
}

// A pending flexible downtime's expiry sweep: unschedule destroys it; a start, or a removal by the sweep or
// a stop, leaves it to run (it checks every downtime, not its own).
void DowntimeBook::drop_expiry(Entry& e, Removal how) {
  if (e.stop_token == 0 || !e.stop_is_expiry) return;
  if (how == Removal::destroy_timers) {
    cancelled_expiries_.insert(e.stop_token);
    ++dead_timers_;
  }
  e.stop_token = 0;
  e.stop_is_expiry = false;
}

bool DowntimeBook::is_live(const Timer& timer) const {
  if (timer.kind == TimerKind::expiry) return !cancelled_expiries_.contains(timer.token);
  const std::uint32_t* slot = slot_of(timer.downtime_id);
  if (slot == nullptr) return false;
  const Entry& e = entries_[*slot];
  return timer.kind == TimerKind::start ? e.start_token == timer.token
                                        : e.stop_token == timer.token && !e.stop_is_expiry;
}

void DowntimeBook::settle_timers() {
  const auto drop = [&](const Timer& t) {
    if (t.kind == TimerKind::expiry) cancelled_expiries_.erase(t.token);
    --dead_timers_;
  };
  while (!timers_.empty() && !is_live(timers_.front())) {
    std::pop_heap(timers_.begin(), timers_.end(), later<Timer>);
    drop(timers_.back());
    timers_.pop_back();
  }
  if (dead_timers_ > 1024 && dead_timers_ * 2 > timers_.size()) {
    std::erase_if(timers_, [&](const Timer& t) {
      if (is_live(t)) return false;
      drop(t);
      return true;
    });
    std::make_heap(timers_.begin(), timers_.end(), later<Timer>);
  }
  const auto is_pending = [&](const PendingEnd& p) {
    const Entry& e = entries_[p.slot];
    return e.live && e.d.downtime_id == p.downtime_id && !e.d.is_in_effect;
  };
  const auto end_later = [](const PendingEnd& a, const PendingEnd& b) { return a.end_time > b.end_time; };
  if (pending_.size() > 1024 && pending_.size() > 2 * pending_count_) {
    std::erase_if(pending_, [&](const PendingEnd& p) { return !is_pending(p); });
    std::make_heap(pending_.begin(), pending_.end(), end_later);
  }
}

// ---- adding

std::uint32_t DowntimeBook::chain_below(unsigned long trigger_id) const {
  const std::uint32_t* slot = slot_of(trigger_id);
  return slot == nullptr ? 1 : entries_[*slot].chain + 1;
}

DowntimeAdded DowntimeBook::insert(DowntimeTarget target, state::Downtime&& record, std::int64_t seq,
                                   std::uint32_t phase_us) {
  std::uint32_t slot;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(entries_.size());
    entries_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  Entry& e = entries_[slot];
  e = Entry{};
  record.is_service = target.is_service;
  e.d = std::move(record);
  e.target = target;
  e.seq = seq;
  e.phase_us = phase_us;
  e.live = true;
  if (e.d.triggered_by != 0) e.chain = chain_below(e.d.triggered_by);
  const unsigned long id = e.d.downtime_id;
  by_id_.insert(id, slot);
  link(object_head(target), slot, &Entry::object_link);
  link(host_head(target.host), slot, &Entry::host_link);
  if (e.d.triggered_by != 0)
    link(trigger_heads_.try_emplace(e.d.triggered_by, k_none).first->second, slot, &Entry::trigger_link);
  if (e.d.is_in_effect) {
    ++depth_of(target);
  } else {
    ++pending_count_;
    pending_.push_back({e.d.end_time, id, slot});
    std::push_heap(pending_.begin(), pending_.end(),
                   [](const PendingEnd& a, const PendingEnd& b) { return a.end_time > b.end_time; });
  }
  arm_timers(slot);
  changed();
  return {id, DowntimeError::none};
}

// register_downtime's events. A pending fixed downtime that is triggered gets none: its trigger starts it.
void DowntimeBook::arm_timers(std::uint32_t slot) {
  Entry& e = entries_[slot];
  if (e.d.is_in_effect) {
    e.stop_token = add_timer(stop_time_of(e.d), e, TimerKind::stop);
  } else if (!e.d.fixed) {
    // The expiry runs at end_time + 1 in case the flexible downtime never starts.
    e.stop_token = add_timer(later(e.d.end_time, 1), e, TimerKind::expiry);
    e.stop_is_expiry = true;
    if (e.d.flex_downtime_start > 0) e.start_token = add_timer(e.d.flex_downtime_start, e, TimerKind::start);
  } else if (e.d.triggered_by == 0) {
    e.start_token = add_timer(e.d.start_time, e, TimerKind::start);
  }
}

DowntimeAdded DowntimeBook::schedule(DowntimeTarget target, state::Downtime request, Time now,
                                     std::uint32_t phase_us) {
  // Commands give times as Naemon reads them, unsigned: "-1" and 2^64-1 read as -1 here, INT64_MIN as
  // itself. Naemon takes such a start as long past and starts the downtime at once; both are far beyond
  // any end instead, so the downtime is refused (docs/compatibility.md).
  if (request.start_time < 0 || request.end_time < 0 || request.start_time >= request.end_time ||
      request.end_time <= now)
    return {0, DowntimeError::bad_times};
  // get_next_downtime_id: the id is taken before downtime_add validates the rest.
  while (by_id_.contains(next_downtime_id_)) ++next_downtime_id_;
  const unsigned long id = next_downtime_id_++;
  if (request.triggered_by != 0 && !by_id_.contains(request.triggered_by))
    return {id, DowntimeError::unknown_trigger};
  if (request.triggered_by != 0 && chain_below(request.triggered_by) > k_max_trigger_chain)
    return {id, DowntimeError::trigger_too_deep};
  if (!request.fixed && request.duration == 0) return {id, DowntimeError::no_duration};
  request.downtime_id = id;
  request.comment_id = 0;
  request.flex_downtime_start = 0;
  request.is_in_effect = false;
  request.start_notification_sent = false;
  return insert(target, std::move(request), ++next_seq_, phase_us);
}

DowntimeAdded DowntimeBook::load(DowntimeTarget target, state::Downtime record) {
  if (record.downtime_id != 0 && by_id_.contains(record.downtime_id))
    return {record.downtime_id, DowntimeError::id_in_use};
  // downtime_add's checks, against the downtimes loaded so far.
  if (record.triggered_by != 0 && !by_id_.contains(record.triggered_by))
    return {record.downtime_id, DowntimeError::unknown_trigger};
  if (record.triggered_by != 0 && chain_below(record.triggered_by) > k_max_trigger_chain)
    return {record.downtime_id, DowntimeError::trigger_too_deep};
  if (record.triggered_by == 0 && record.start_time >= record.end_time)
    return {record.downtime_id, DowntimeError::bad_times};
  if (!record.fixed && record.duration == 0) return {record.downtime_id, DowntimeError::no_duration};
  if (record.downtime_id == 0) {
    while (by_id_.contains(next_downtime_id_)) ++next_downtime_id_;
    record.downtime_id = next_downtime_id_;
  }
  // Naemon moves the counter only past a larger id, so a retained id equal to the counter would be handed
  // out again; past it is the safe reading of the same rule.
  next_downtime_id_ = std::max(next_downtime_id_, record.downtime_id + 1);
  return insert(target, std::move(record), --next_load_seq_, 0);
}

// ---- transitions

void DowntimeBook::push_event(std::vector<DowntimeEvent>& events, DowntimeEvent::Kind kind, bool alert,
                              bool notify, int depth, const Entry& e) const {
  const int host_depth = e.target.is_service ? this->depth(e.target.host) : depth;
  events.push_back(DowntimeEvent{kind, alert, notify, depth, host_depth, e.target, e.d});
}

void DowntimeBook::handle(std::uint32_t slot, Time now, std::vector<DowntimeEvent>& events) {
  const Entry& e = entries_[slot];
  if (!e.live || e.busy) return;
  if (e.d.is_in_effect)
    stop(slot, now, events);
  else
    start(slot, now, events);
}

void DowntimeBook::start(std::uint32_t slot, Time now, std::vector<DowntimeEvent>& events) {
  Entry& e = entries_[slot];
  e.busy = true;
  int& depth = depth_of(e.target);
  const int depth_before = depth;
  const bool alert = depth_before == 0;
  const bool notify = alert && !e.d.start_notification_sent;
  if (notify) e.d.start_notification_sent = true;
  ++depth;
  --pending_count_;
  e.d.is_in_effect = true;
  cancel_timer(e.start_token);
  // A pending flexible downtime's expiry stays armed (Naemon overwrites its handle, not the event).
  if (e.stop_is_expiry)
    drop_expiry(e, Removal::orphan_expiry);
  else
    cancel_timer(e.stop_token);
  e.stop_token = add_timer(stop_time_of(e.d), e, TimerKind::stop);
  changed();
  push_event(events, DowntimeEvent::Kind::started, alert, notify, depth_before, e);

  const unsigned long id = e.d.downtime_id;
  const Time flex_start = e.d.flex_downtime_start;
  const std::uint32_t phase_us = e.phase_us;
  for (const std::uint32_t child : children_of(id)) {
    Entry& c = entries_[child];
    if (!c.live || c.busy) continue;
    // Naemon copies the trigger's flex_downtime_start, which is 0 for a fixed trigger, so a flexible
    // downtime triggered by a fixed one would end at 0 + duration, right after it starts. Vedette starts its
    // duration when its trigger starts instead (docs/compatibility.md).
    c.d.flex_downtime_start = (flex_start == 0 && !c.d.fixed) ? now : flex_start;
    c.phase_us = phase_us;  // Naemon arms its stop from the trigger's start event
    handle(child, now, events);
  }
  entries_[slot].busy = false;
}

void DowntimeBook::stop(std::uint32_t slot, Time now, std::vector<DowntimeEvent>& events) {
  Entry& e = entries_[slot];
  e.busy = true;
  int& depth = depth_of(e.target);
  if (depth > 0) --depth;
  const bool alert = depth == 0;
  push_event(events, DowntimeEvent::Kind::stopped, alert, alert, depth, e);

  // Naemon handles each triggered downtime until it is gone: one in effect stops; one not yet started
  // (added after its trigger started) starts and then stops at once.
  for (const std::uint32_t child : children_of(e.d.downtime_id)) {
    handle(child, now, events);
    if (entries_[child].live && entries_[child].d.is_in_effect) handle(child, now, events);
  }
  remove(slot, Removal::orphan_expiry);
}

void DowntimeBook::cancel(std::uint32_t first, std::vector<DowntimeEvent>& events) {
  // One downtime: its event, then it goes; what it triggered is returned, to be cancelled after it.
  const auto cancel_one = [&](std::uint32_t slot) {
    Entry& e = entries_[slot];
    e.busy = true;
    if (e.d.is_in_effect) {
      int& depth = depth_of(e.target);
      if (depth > 0) --depth;
      const bool alert = depth == 0;
      push_event(events, DowntimeEvent::Kind::cancelled, alert, alert, depth, e);
    } else {
      push_event(events, DowntimeEvent::Kind::cancelled, /*alert=*/false, /*notify=*/false,
                 depth_of(e.target), e);
    }
    std::vector<std::uint32_t> children = children_of(e.d.downtime_id);
    remove(slot, Removal::destroy_timers);
    return children;
  };
  // As Naemon's, depth first, each downtime before those it triggered; with a stack of its own rather than
  // recursion: a chain of triggers as long as commands make it must not take the core thread's stack.
  struct Level {
    std::vector<std::uint32_t> children;
    std::size_t next = 0;
  };
  std::vector<Level> levels;
  levels.push_back({cancel_one(first)});
  while (!levels.empty()) {
    Level& level = levels.back();
    if (level.next == level.children.size()) {
      levels.pop_back();
      continue;
    }
    const std::uint32_t child = level.children[level.next++];
    if (entries_[child].live && !entries_[child].busy) levels.push_back({cancel_one(child)});
  }
}

// check_for_expired_downtime: every downtime not in effect whose end_time has passed, in list order,
// whoever armed the sweep. Triggered downtimes of an expired one stay (Naemon deletes, not unschedules).
void DowntimeBook::expire_pending(Time now, std::vector<DowntimeEvent>& events) {
  const auto end_later = [](const PendingEnd& a, const PendingEnd& b) { return a.end_time > b.end_time; };
  std::vector<std::uint32_t> due;
  while (!pending_.empty() && pending_.front().end_time <= now) {
    std::pop_heap(pending_.begin(), pending_.end(), end_later);
    const PendingEnd p = pending_.back();
    pending_.pop_back();
    const Entry& e = entries_[p.slot];
    if (e.live && e.d.downtime_id == p.downtime_id && !e.d.is_in_effect) due.push_back(p.slot);
  }
  for (const std::uint32_t slot : in_list_order(std::move(due))) {
    const Entry& e = entries_[slot];
    if (!e.live || e.d.is_in_effect || e.busy) continue;
    push_event(events, DowntimeEvent::Kind::expired, /*alert=*/false, /*notify=*/true, depth_of(e.target), e);
    remove(slot, Removal::orphan_expiry);
  }
}

// Leaves the depth alone: stop() and cancel() have already counted the downtime out.
void DowntimeBook::remove(std::uint32_t slot, Removal how) {
  Entry& e = entries_[slot];
  cancel_timer(e.start_token);
  if (e.stop_is_expiry)
    drop_expiry(e, how);
  else
    cancel_timer(e.stop_token);
  if (!e.d.is_in_effect) --pending_count_;  // its pending_ entry is pruned lazily
  unlink(object_head(e.target), slot, &Entry::object_link);
  unlink(host_head(e.target.host), slot, &Entry::host_link);
  if (e.d.triggered_by != 0) {
    const auto it = trigger_heads_.find(e.d.triggered_by);
    unlink(it->second, slot, &Entry::trigger_link);
    if (it->second == k_none) trigger_heads_.erase(it);
  }
  by_id_.erase(e.d.downtime_id);
  e = Entry{};
  free_slots_.push_back(slot);
  changed();
}

std::optional<DowntimeBook::Due> DowntimeBook::next_event() const {
  if (timers_.empty()) return std::nullopt;
  return Due{timers_.front().at, timers_.front().phase_us};  // settle_timers() keeps a live timer on top
}

std::vector<DowntimeEvent> DowntimeBook::advance(Time now, std::uint32_t phase_us) {
  std::vector<DowntimeEvent> events;
  const auto due = [&](const Timer& t) { return t.at < now || (t.at == now && t.phase_us <= phase_us); };
  while (!timers_.empty() && due(timers_.front())) {
    std::pop_heap(timers_.begin(), timers_.end(), later<Timer>);
    const Timer timer = timers_.back();
    timers_.pop_back();
    if (!is_live(timer)) {
      if (timer.kind == TimerKind::expiry) cancelled_expiries_.erase(timer.token);
      --dead_timers_;
      continue;
    }
    const std::uint32_t* slot = slot_of(timer.downtime_id);
    switch (timer.kind) {
      case TimerKind::start:
        entries_[*slot].start_token = 0;
        start(*slot, now, events);
        break;
      case TimerKind::stop:
        entries_[*slot].stop_token = 0;
        stop(*slot, now, events);
        break;
      case TimerKind::expiry:
        if (slot != nullptr && entries_[*slot].stop_is_expiry && entries_[*slot].stop_token == timer.token) {
          entries_[*slot].stop_token = 0;
          entries_[*slot].stop_is_expiry = false;
        }
        expire_pending(now, events);
        break;
    }
  }
  settle_timers();
  return events;
}

std::size_t DowntimeBook::arm_flexible(std::uint32_t head, Time now, std::uint32_t phase_us) {
  std::size_t armed = 0;
  for (const std::uint32_t slot : in_list_order(collect(head, &Entry::object_link))) {
    Entry& e = entries_[slot];
    if (e.d.fixed || e.d.is_in_effect || e.d.triggered_by != 0) continue;
    if (now < e.d.start_time || now > e.d.end_time) continue;
    e.d.flex_downtime_start = now;
    e.phase_us = phase_us;  // its start and stop follow the problem that started it
    cancel_timer(e.start_token);
    e.start_token = add_timer(now, e, TimerKind::start);
    ++armed;
    changed();
  }
  settle_timers();
  return armed;
}

std::size_t DowntimeBook::on_problem(model::HostId host, Time now, std::uint32_t phase_us) {
  return arm_flexible(head_at(host_object_heads_, model::index(host)), now, phase_us);
}

std::size_t DowntimeBook::on_problem(model::ServiceId service, Time now, std::uint32_t phase_us) {
  return arm_flexible(head_at(service_object_heads_, model::index(service)), now, phase_us);
}

// ---- deleting

DowntimeRemoval DowntimeBook::unschedule(unsigned long downtime_id, DowntimeType type) {
  DowntimeRemoval removal;
  const std::uint32_t* slot = slot_of(downtime_id);
  if (slot == nullptr) return removal;
  const bool is_service = entries_[*slot].target.is_service;
  if ((type == DowntimeType::host && is_service) || (type == DowntimeType::service && !is_service))
    return removal;
  removal.matched = 1;
  cancel(*slot, removal.events);
  settle_timers();
  return removal;
}

DowntimeRemoval DowntimeBook::delete_matching(const DowntimeFilter& filter) {
  DowntimeRemoval removal;
  if (!filter.host && !filter.service_description && filter.start_time == 0 && !filter.comment)
    return removal;

  const std::vector<std::uint32_t> candidates =
      filter.host ? collect(head_at(host_heads_, model::index(*filter.host)), &Entry::host_link)
                  : live_slots();
  std::vector<std::uint32_t> matches;
  for (const std::uint32_t slot : candidates) {
    const Entry& e = entries_[slot];
    if (filter.start_time != 0 && e.d.start_time != filter.start_time) continue;
    if (filter.comment && e.d.comment != *filter.comment) continue;
    if (filter.host && e.target.host != *filter.host) continue;
    if (!e.target.is_service && filter.service_description) continue;  // a service filter spares hosts
    if (e.target.is_service && filter.service_description &&
        e.d.service_description != *filter.service_description)
      continue;
    matches.push_back(slot);
  }
  matches = in_list_order(std::move(matches));
  removal.matched = matches.size();
  // Naemon prepends each match to a list it then walks: the last match is unscheduled first. A match that
  // an earlier cascade already removed is skipped (but still counted).
  for (auto it = matches.rbegin(); it != matches.rend(); ++it)
    if (entries_[*it].live && !entries_[*it].busy) cancel(*it, removal.events);
  settle_timers();
  return removal;
}

// ---- queries

const state::Downtime* DowntimeBook::find(unsigned long downtime_id) const {
  const std::uint32_t* slot = slot_of(downtime_id);
  return slot != nullptr ? &entries_[*slot].d : nullptr;
}

std::optional<DowntimeTarget> DowntimeBook::target_of(unsigned long downtime_id) const {
  const std::uint32_t* slot = slot_of(downtime_id);
  if (slot == nullptr) return std::nullopt;
  return entries_[*slot].target;
}

bool DowntimeBook::set_comment_id(unsigned long downtime_id, unsigned long comment_id) {
  const std::uint32_t* slot = slot_of(downtime_id);
  if (slot == nullptr) return false;
  entries_[*slot].d.comment_id = comment_id;
  changed();
  return true;
}

std::vector<unsigned long> DowntimeBook::ids_of(model::HostId host) const {
  return ids_in_order(head_at(host_object_heads_, model::index(host)), &Entry::object_link);
}

std::vector<unsigned long> DowntimeBook::ids_of(model::ServiceId service) const {
  return ids_in_order(head_at(service_object_heads_, model::index(service)), &Entry::object_link);
}

std::vector<unsigned long> DowntimeBook::ids_on_host(model::HostId host) const {
  return ids_in_order(head_at(host_heads_, model::index(host)), &Entry::host_link);
}

void DowntimeBook::clear() {
  entries_.clear();
  free_slots_.clear();
  by_id_.clear();
  timers_.clear();
  dead_timers_ = 0;
  cancelled_expiries_.clear();
  pending_.clear();
  pending_count_ = 0;
  host_object_heads_.clear();
  service_object_heads_.clear();
  host_heads_.clear();
  trigger_heads_.clear();
  host_depth_.clear();
  service_depth_.clear();
  ++depth_version_;
  changed();
}

std::shared_ptr<const std::vector<state::Downtime>> DowntimeBook::snapshot() const {
  return snapshots_.get(version_, [&](std::vector<state::Downtime>& out) {
    // Sorting the keys in one array beats keeping an ordered tree up to date on every change (BM_Load).
    std::vector<ListKey> order;
    order.reserve(by_id_.size());
    for (std::uint32_t slot = 0; slot < entries_.size(); ++slot)
      if (entries_[slot].live) order.push_back(list_key(slot));
    std::sort(order.begin(), order.end());
    out.resize(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) out[i] = entries_[order[i].slot].d;
  });
}

void DowntimeBook::reserve(std::size_t downtimes) {
  entries_.reserve(downtimes);
}

bool DowntimeBook::check_invariants() const {
  if (!by_id_.check_invariants()) return false;
  if (!std::is_heap(timers_.begin(), timers_.end(), later<Timer>)) return false;
  std::unordered_map<std::uint64_t, const Timer*> by_token;
  std::size_t dead = 0;
  for (const Timer& t : timers_) {
    if (!by_token.emplace(t.token, &t).second) return false;
    if (!is_live(t)) ++dead;
  }
  if (dead != dead_timers_ || (!timers_.empty() && !is_live(timers_.front()))) return false;
  if (cancelled_expiries_.size() > dead) return false;

  std::unordered_set<unsigned long> in_pending_heap;
  for (const PendingEnd& p : pending_) in_pending_heap.insert(p.downtime_id);

  std::size_t live = 0, pending = 0, triggered = 0;
  std::vector<int> host_depth(host_depth_.size()), service_depth(service_depth_.size());
  const auto owns = [&](std::uint64_t token, TimerKind kind, unsigned long id) {
    const auto it = by_token.find(token);
    return it != by_token.end() && it->second->kind == kind && it->second->downtime_id == id;
  };
  for (std::uint32_t slot = 0; slot < entries_.size(); ++slot) {
    const Entry& e = entries_[slot];
    if (!e.live) continue;
    ++live;
    const unsigned long id = e.d.downtime_id;
    if (e.busy || e.d.is_service != e.target.is_service) return false;
    const std::uint32_t* indexed = by_id_.find(id);
    if (indexed == nullptr || *indexed != slot || id >= next_downtime_id_) return false;
    if (e.start_token != 0 && !owns(e.start_token, TimerKind::start, id)) return false;
    if (e.stop_token != 0 && !owns(e.stop_token, e.stop_is_expiry ? TimerKind::expiry : TimerKind::stop, id))
      return false;
    if (e.d.is_in_effect) {
      std::vector<int>& depths = e.target.is_service ? service_depth : host_depth;
      const std::uint32_t index =
          e.target.is_service ? model::index(e.target.service) : model::index(e.target.host);
      if (index >= depths.size()) return false;
      ++depths[index];
      if (e.stop_token == 0 || e.stop_is_expiry || e.start_token != 0) return false;
    } else {
      if (!in_pending_heap.contains(id)) return false;
      ++pending;
    }
    if (e.d.triggered_by != 0) ++triggered;
  }
  if (live != by_id_.size() || pending != pending_count_) return false;
  if (live + free_slots_.size() != entries_.size()) return false;
  if (host_depth != host_depth_ || service_depth != service_depth_) return false;

  // Each list holds exactly the downtimes it should, linked both ways.
  const auto check_list = [&](std::uint32_t head, Link Entry::*link, auto&& belongs) -> std::size_t {
    std::size_t n = 0;
    std::uint32_t prev = k_none;
    for (std::uint32_t slot = head; slot != k_none; slot = (entries_[slot].*link).next) {
      const Entry& e = entries_[slot];
      if (!e.live || (e.*link).prev != prev || !belongs(e)) return std::numeric_limits<std::size_t>::max();
      prev = slot;
      ++n;
    }
    return n;
  };
  std::size_t objects = 0, hosts = 0, triggers = 0;
  for (std::uint32_t i = 0; i < host_object_heads_.size(); ++i)
    objects += check_list(host_object_heads_[i], &Entry::object_link, [&](const Entry& e) {
      return !e.target.is_service && model::index(e.target.host) == i;
    });
  for (std::uint32_t i = 0; i < service_object_heads_.size(); ++i)
    objects += check_list(service_object_heads_[i], &Entry::object_link, [&](const Entry& e) {
      return e.target.is_service && model::index(e.target.service) == i;
    });
  for (std::uint32_t i = 0; i < host_heads_.size(); ++i)
    hosts += check_list(host_heads_[i], &Entry::host_link,
                        [&](const Entry& e) { return model::index(e.target.host) == i; });
  for (const auto& [trigger, head] : trigger_heads_)
    triggers += check_list(head, &Entry::trigger_link,
                           [&, trigger = trigger](const Entry& e) { return e.d.triggered_by == trigger; });
  return objects == live && hosts == live && triggers == triggered;
}

// ---- texts

namespace {

// Naemon's get_datetime_string(..., SHORT_DATE_TIME) in local time.
std::string short_date_time(Time t, config::DateFormat format) {
  const std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  ::localtime_r(&tt, &tm);
  const int year = tm.tm_year + 1900, month = tm.tm_mon + 1;
  char buffer[64];
  switch (format) {
    case config::DateFormat::euro:
      std::snprintf(buffer, sizeof buffer, "%02d-%02d-%04d %02d:%02d:%02d", tm.tm_mday, month, year,
                    tm.tm_hour, tm.tm_min, tm.tm_sec);
      break;
    case config::DateFormat::iso8601:
    case config::DateFormat::strict_iso8601:
      std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02d%c%02d:%02d:%02d", year, month, tm.tm_mday,
                    format == config::DateFormat::strict_iso8601 ? 'T' : ' ', tm.tm_hour, tm.tm_min,
                    tm.tm_sec);
      break;
    case config::DateFormat::us:
      std::snprintf(buffer, sizeof buffer, "%02d-%02d-%04d %02d:%02d:%02d", month, tm.tm_mday, year,
                    tm.tm_hour, tm.tm_min, tm.tm_sec);
      break;
  }
  return buffer;
}

}  // namespace

std::string downtime_comment_text(const state::Downtime& d, config::DateFormat format) {
  const std::string type = d.is_service ? "service" : "host";
  const std::string start = short_date_time(d.start_time, format);
  const std::string end = short_date_time(d.end_time, format);
  const std::string tail =
      ".  Notifications for the " + type + " will not be sent out during that time period.";
  if (d.fixed)
    return "This " + type + " has been scheduled for fixed downtime from " + start + " to " + end + tail;
  // Naemon's int hours and minutes of the duration; seconds are dropped.
  const int hours = static_cast<int>(d.duration / 3600);
  const int minutes = static_cast<int>((d.duration - static_cast<unsigned long>(hours) * 3600) / 60);
  return "This " + type + " has been scheduled for flexible downtime starting between " + start + " and " +
         end + " and lasting for a period of " + std::to_string(hours) + " hours and " +
         std::to_string(minutes) + " minutes" + tail;
}

std::string downtime_alert_text(DowntimeEvent::Kind kind, const state::Downtime& d) {
  using Kind = DowntimeEvent::Kind;
  if (kind == Kind::expired) return {};
  std::string line = d.is_service
                         ? "SERVICE DOWNTIME ALERT: " + d.host_name + ";" + d.service_description + ";"
                         : "HOST DOWNTIME ALERT: " + d.host_name + ";";
  const char* object = d.is_service ? "Service" : "Host";
  switch (kind) {
    case Kind::started:
      return line + "STARTED; " + object + " has entered a period of scheduled downtime";
    case Kind::stopped:
      return line + "STOPPED; " + object + " has exited from a period of scheduled downtime";
    case Kind::cancelled:
      return line + "CANCELLED; Scheduled downtime for " + (d.is_service ? "service" : "host") +
             " has been cancelled.";
    case Kind::expired:
      break;
  }
  return {};
}

unsigned long ensure_downtime_comment(DowntimeBook& downtimes, CommentBook& comments,
                                      unsigned long downtime_id, Time now, config::DateFormat format) {
  const state::Downtime* d = downtimes.find(downtime_id);
  if (d == nullptr) return 0;
  if (d->comment_id != 0 && comments.find(d->comment_id) != nullptr) return d->comment_id;
  state::Comment comment{.host_name = d->host_name,
                         .service_description = d->service_description,
                         .entry_type = k_downtime_comment,
                         .source = k_comment_source_internal,
                         .persistent = false,
                         .entry_time = now,
                         .author = d->author,
                         .comment_data = downtime_comment_text(*d, format)};
  const DowntimeTarget target = *downtimes.target_of(downtime_id);
  const unsigned long comment_id = target.is_service ? comments.add(target.service, std::move(comment))
                                                     : comments.add(target.host, std::move(comment));
  downtimes.set_comment_id(downtime_id, comment_id);
  return comment_id;
}

}  // namespace vedette::engine
