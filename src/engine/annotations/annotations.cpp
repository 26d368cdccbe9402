#include "engine/annotations/annotations.hpp"

#include "engine/books/comment_book.hpp"
#include "engine/books/downtime_book.hpp"
#include "engine/notify/notifier.hpp"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <utility>

namespace vedette::engine {

Annotations::Annotations(World& world, Notifier& notifier)
    : w_(world),
      notifier_(notifier),
      ack_timer_(w_.loop.add_timer(*this)),
      downtime_timer_(w_.loop.add_timer(*this)) {}

Annotations::~Annotations() {
  w_.loop.remove_timer(downtime_timer_);
  w_.loop.remove_timer(ack_timer_);
}

void Annotations::acknowledge(CheckId check, const Acknowledgement& ack) {
  CheckState& st = w_.state_of(check);
  if (st.current_state == 0) return;
  const Time now = w_.now_epoch();
  if (ack.end_time > 0 && ack.end_time <= now) return;
  st.problem_has_been_acknowledged = true;
  st.acknowledgement_type = ack.sticky ? 2 : 1;
  st.acknowledgement_end_time = ack.end_time;
  if (ack.end_time > 0) expire_acknowledgement_at(check, ack.end_time);
  if (ack.notify) {
    w_.with_object(check, [&](auto id) {
      notifier_.notify(w_.notifier_world(now), id, NotificationType::acknowledgement,
                       {ack.author, ack.comment});
    });
  }
  add_acknowledgement_comment(check, ack, now);
}

void Annotations::remove_acknowledgement(CheckId check) {
  // Naemon's remove_*_acknowledgement (the command and the expiry) clears the flag and the end time but
  // keeps acknowledgement_type, which status.dat, retention.dat and Livestatus show until a later result
  // resets it (state_machine.cpp: a state change for a normal one, the recovery for a sticky one).
  CheckState& st = w_.state_of(check);
  st.problem_has_been_acknowledged = false;
  st.acknowledgement_end_time = 0;
  acknowledgement_ended(check);
}

void Annotations::acknowledgement_ended(CheckId check) {
  w_.with_object(check, [&](auto id) { (void)w_.comments->remove_acknowledgement_comments(id); });
}

void Annotations::add_comment(CheckId check, const UserComment& c) {
  add_comment_to(check, {.entry_type = k_user_comment,
                         .source = k_comment_source_external,
                         .persistent = c.persistent,
                         .entry_time = c.entry_time,
                         .author = std::string(c.author),
                         .comment_data = std::string(c.text)});
}

// The comment an acknowledgement adds (Naemon: internal, expiring with it).
void Annotations::add_acknowledgement_comment(CheckId check, const Acknowledgement& ack, Time now) {
  add_comment_to(check, {.entry_type = k_acknowledgement_comment,
                         .source = k_comment_source_internal,
                         .persistent = ack.persistent,
                         .entry_time = now,
                         .expires = ack.end_time != 0,
                         .expire_time = ack.end_time,
                         .author = std::string(ack.author),
                         .comment_data = std::string(ack.comment)});
}

unsigned long Annotations::add_comment_to(CheckId check, state::Comment c) {
  if (w_.is_service(check)) {
    const model::Service& svc = w_.model->services[model::index(check)];
    c.host_name.assign(svc.host_name);
    c.service_description.assign(svc.description);
    return w_.comments->add(w_.service_of(check), std::move(c));
  }
  const model::HostId h = w_.host_of(check);
  c.host_name.assign(w_.model->host(h).name);
  return w_.comments->add(h, std::move(c));
}

bool Annotations::delete_comment(ObjectKind kind, unsigned long id) {
  const state::Comment* c = w_.comments->find(id);
  if (c == nullptr || c->is_service != (kind == ObjectKind::service)) return false;
  return w_.comments->remove(id);
}

void Annotations::delete_all_comments(CheckId check) {
  w_.with_object(check, [&](auto id) { (void)w_.comments->remove_all_of(id); });
}

DowntimeTarget Annotations::target_of(CheckId check) const {
  if (w_.is_service(check))
    return DowntimeTarget::of_service(w_.model->services[model::index(check)].host, w_.service_of(check));
  return DowntimeTarget::of_host(w_.host_of(check));
}

unsigned long Annotations::schedule_downtime(CheckId check, const DowntimeRequest& r) {
  const DowntimeTarget target = target_of(check);
  state::Downtime d{
      .is_service = target.is_service,
      .entry_time = r.entry_time,
      .start_time = r.start_time,
      .end_time = r.end_time,
      .triggered_by = r.triggered_by,
      .fixed = r.fixed,
      // Naemon's end - start, modulo 2^64 rather than a signed overflow (the times come from commands)
      .duration = r.fixed ? static_cast<unsigned long>(r.end_time) - static_cast<unsigned long>(r.start_time)
                          : r.duration,
      .author = std::string(r.author),
      .comment = std::string(r.comment)};
  if (target.is_service) {
    d.host_name.assign(w_.model->services[model::index(check)].host_name);
    d.service_description.assign(w_.model->services[model::index(check)].description);
  } else {
    d.host_name.assign(w_.model->host(target.host).name);
  }
  const loop::WallTime wall = w_.clock.wall_now();
  const Time now = to_epoch(wall);
  const DowntimeAdded added = w_.downtimes->schedule(target, std::move(d), now, phase_us(wall));
  if (!added.ok()) return 0;
  ensure_downtime_comment(*w_.downtimes, *w_.comments, added.downtime_id, now, w_.main.date_format);
  // As Naemon's start event, a due downtime starts in the next round, not within the command: the
  // downtimes a propagating command triggers from it are scheduled before it starts.
  arm_downtime_timer();
  return added.downtime_id;
}

void Annotations::schedule_propagated_downtime(model::HostId top, const DowntimeRequest& r, bool triggered) {
  const unsigned long id = schedule_downtime(w_.check_of(top), r);
  DowntimeRequest child = r;
  child.triggered_by = triggered ? id : 0;
  // Naemon: each host's children first (depth-first), children in name order; a host once.
  const model::Model& model = *w_.model;
  std::vector<bool> seen(model.hosts.size(), false);
  seen[model::index(top)] = true;
  auto by_name = [&](std::vector<model::HostId> hosts) {
    std::sort(hosts.begin(), hosts.end(),
              [&](model::HostId a, model::HostId b) { return model.host(a).name < model.host(b).name; });
    return hosts;
  };
  // Walked with a stack of its own, not recursion: a parent chain as long as the configuration makes it
  // must not take the core thread's stack. A host is scheduled once all below it are (post-order).
  struct Level {
    model::HostId host;
    std::vector<model::HostId> children;  // by name
    std::size_t next = 0;
  };
  std::vector<Level> levels;
  levels.push_back({top, by_name(model.host(top).children)});
  while (!levels.empty()) {
    Level& level = levels.back();
    if (level.next == level.children.size()) {
      const model::HostId done = level.host;
      levels.pop_back();
      if (done != top) schedule_downtime(w_.check_of(done), child);
      continue;
    }
    const model::HostId c = level.children[level.next++];
    if (seen[model::index(c)]) continue;
    seen[model::index(c)] = true;
    levels.push_back({c, by_name(model.host(c).children)});  // `level` is not used after this
  }
}

bool Annotations::delete_downtime(ObjectKind kind, unsigned long id) {
  const DowntimeRemoval removed =
      w_.downtimes->unschedule(id, kind == ObjectKind::service ? DowntimeType::service : DowntimeType::host);
  run_downtime_events(removed.events);
  return removed.matched != 0;
}

std::size_t Annotations::delete_downtimes(const DowntimeFilter& filter) {
  const DowntimeRemoval removed = w_.downtimes->delete_matching(filter);
  run_downtime_events(removed.events);
  return removed.matched;
}

std::size_t Annotations::flexible_downtimes_on_problem(CheckId check, Time now) {
  const std::uint32_t phase = phase_us(w_.clock.wall_now());
  const std::size_t started =
      w_.with_object(check, [&](auto id) { return w_.downtimes->on_problem(id, now, phase); });
  if (started > 0) arm_downtime_timer();
  return started;
}

void Annotations::adopt_books(Books books) {
  w_.comments = std::move(books.comments);
  w_.downtimes = std::move(books.downtimes);
  arm_downtime_timer();
}

// At the exact microsecond: the loop may run the timer early (timer slack), and the handler then finds
// nothing due and re-arms it here.
void Annotations::arm_downtime_timer() {
  if (const std::optional<DowntimeBook::Due> next = w_.downtimes->next_event()) {
    w_.loop.arm_timer(downtime_timer_,
                      w_.loop.now() + until_epoch(next->at, next->phase_us, w_.clock.wall_now()));
  } else {
    w_.loop.disarm_timer(downtime_timer_);
  }
}

// What the downtime book says happened: Naemon's log lines, the DOWNTIMESTART/END/CANCELLED
// notifications, and the comment of a downtime that is gone.
void Annotations::run_downtime_events(const std::vector<DowntimeEvent>& events) {
  const Time now = w_.now_epoch();
  for (const DowntimeEvent& e : events) {
    if (e.alert) {
      const std::string text = downtime_alert_text(e.kind, e.downtime);
      if (!text.empty()) w_.log(text);
    }
    if (e.notify) {
      NotificationType type = NotificationType::downtime_end;
      NotificationNote note{e.downtime.author, e.downtime.comment, e.depth, e.host_depth};
      if (e.kind == DowntimeEvent::Kind::started) type = NotificationType::downtime_start;
      if (e.kind == DowntimeEvent::Kind::cancelled) {
        type = NotificationType::downtime_cancelled;
        note.author = note.comment = {};
      }
      if (e.target.is_service) {
        notifier_.notify(w_.notifier_world(now), e.target.service, type, note);
      } else {
        notifier_.notify(w_.notifier_world(now), e.target.host, type, note);
      }
    }
    if (e.kind != DowntimeEvent::Kind::started && e.downtime.comment_id != 0)
      (void)w_.comments->remove(e.downtime.comment_id);
  }
  arm_downtime_timer();
}

// Expiring acknowledgements wait in ack_expiry_ (by end time); one timer fires for the earliest. Timers
// may fire early: the handler checks the time again.
void Annotations::expire_acknowledgement_at(CheckId check, Time end_time) {
  ack_expiry_.emplace(end_time, check);
  w_.loop.arm_timer(ack_timer_, w_.loop.now() + until_epoch(ack_expiry_.begin()->first, w_.clock.wall_now()));
}

void Annotations::collect_acknowledgement_expiry() {
  ack_expiry_.clear();
  w_.loop.disarm_timer(ack_timer_);
  const auto checks = static_cast<std::uint32_t>(w_.check_count());
  for (std::uint32_t i = 0; i < checks; ++i) {
    const CheckId c{i};
    const CheckState& st = w_.state_of(c);
    if (st.problem_has_been_acknowledged && st.acknowledgement_end_time > 0)
      expire_acknowledgement_at(c, st.acknowledgement_end_time);
  }
}

// Naemon's handle_*_acknowledgement_expire_event: an acknowledgement still in place with that end time.
void Annotations::expire_acknowledgements() {
  const Time now = w_.now_epoch();
  while (!ack_expiry_.empty() && ack_expiry_.begin()->first <= now) {
    const auto [end_time, check] = *ack_expiry_.begin();
    ack_expiry_.erase(ack_expiry_.begin());
    const CheckState& st = w_.state_of(check);
    if (st.problem_has_been_acknowledged && st.acknowledgement_end_time == end_time)
      remove_acknowledgement(check);
  }
  if (!ack_expiry_.empty())
    w_.loop.arm_timer(ack_timer_,
                      w_.loop.now() + until_epoch(ack_expiry_.begin()->first, w_.clock.wall_now()));
}

void Annotations::on_timer(loop::TimerId id) {
  if (id == ack_timer_) {
    expire_acknowledgements();
    return;
  }
  const loop::WallTime wall = w_.clock.wall_now();
  run_downtime_events(w_.downtimes->advance(to_epoch(wall), phase_us(wall)));
}

}  // namespace vedette::engine
