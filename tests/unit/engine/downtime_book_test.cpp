#include "engine/books/downtime_book.hpp"

#include "config/main_config.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace vedette::engine {
namespace {

using Kind = DowntimeEvent::Kind;
using model::HostId;
using model::ServiceId;

constexpr Time k_now = 1'700'000'000;

const DowntimeTarget k_host0 = DowntimeTarget::of_host(HostId{0});
const DowntimeTarget k_host1 = DowntimeTarget::of_host(HostId{1});
const DowntimeTarget k_svc0 = DowntimeTarget::of_service(HostId{0}, ServiceId{0});  // on host 0
const DowntimeTarget k_svc1 = DowntimeTarget::of_service(HostId{0}, ServiceId{1});  // on host 0
const DowntimeTarget k_svc2 = DowntimeTarget::of_service(HostId{1}, ServiceId{2});  // on host 1

// A request as the SCHEDULE_* commands build it (fixed: duration = end - start).
state::Downtime fixed(Time start, Time end, unsigned long triggered_by = 0, std::string comment = "fixed") {
  return {.host_name = "h",
          .entry_time = k_now,
          .start_time = start,
          .end_time = end,
          .triggered_by = triggered_by,
          .fixed = true,
          .duration = static_cast<unsigned long>(end) - static_cast<unsigned long>(start),
          .author = "admin",
          .comment = std::move(comment)};
}

state::Downtime flexible(Time start, Time end, unsigned long duration, unsigned long triggered_by = 0) {
  state::Downtime d = fixed(start, end, triggered_by, "flexible");
  d.fixed = false;
  d.duration = duration;
  return d;
}

struct Seen {
  Kind kind;
  unsigned long id;
  bool alert;
  bool notify;
  bool operator==(const Seen&) const = default;
};

std::ostream& operator<<(std::ostream& out, const Seen& s) {
  static const char* const names[] = {"started", "stopped", "cancelled", "expired"};
  return out << names[static_cast<int>(s.kind)] << "(" << s.id << (s.alert ? " alert" : "")
             << (s.notify ? " notify" : "") << ")";
}

std::vector<Seen> seen(const std::vector<DowntimeEvent>& events) {
  std::vector<Seen> out;
  for (const DowntimeEvent& e : events) out.push_back({e.kind, e.downtime.downtime_id, e.alert, e.notify});
  return out;
}

std::vector<unsigned long> ids_in(const std::vector<state::Downtime>& downtimes) {
  std::vector<unsigned long> ids;
  for (const state::Downtime& d : downtimes) ids.push_back(d.downtime_id);
  return ids;
}

class DowntimeBookTest : public ::testing::Test {
 protected:
  unsigned long schedule(DowntimeTarget target, state::Downtime request, Time now = k_now) {
    const DowntimeAdded added = book_.schedule(target, std::move(request), now);
    EXPECT_TRUE(added.ok());
    return added.downtime_id;
  }
  std::optional<Time> next_at() const {
    const std::optional<DowntimeBook::Due> due = book_.next_event();
    return due ? std::optional<Time>(due->at) : std::nullopt;
  }
  std::vector<Seen> advance(Time now) {
    auto events = book_.advance(now);
    EXPECT_TRUE(book_.check_invariants());
    return seen(events);
  }

  DowntimeBook book_;
};

TEST_F(DowntimeBookTest, FixedStartsAtStartTimeAndStopsAtEndTime) {
  const unsigned long id = schedule(k_host0, fixed(k_now + 100, k_now + 200));
  EXPECT_EQ(id, 1u);
  EXPECT_EQ(next_at(), k_now + 100);
  EXPECT_TRUE(advance(k_now + 99).empty());
  EXPECT_EQ(advance(k_now + 100), (std::vector<Seen>{{Kind::started, id, true, true}}));
  EXPECT_EQ(book_.depth(HostId{0}), 1);
  EXPECT_TRUE(book_.find(id)->is_in_effect);
  EXPECT_TRUE(book_.find(id)->start_notification_sent);
  EXPECT_EQ(next_at(), k_now + 200);
  EXPECT_TRUE(advance(k_now + 199).empty());
  const auto events = book_.advance(k_now + 200);
  EXPECT_EQ(seen(events), (std::vector<Seen>{{Kind::stopped, id, true, true}}));
  EXPECT_EQ(events[0].depth, 0);
  EXPECT_EQ(book_.depth(HostId{0}), 0);
  EXPECT_EQ(book_.find(id), nullptr);
  EXPECT_EQ(next_at(), std::nullopt);
  EXPECT_TRUE(book_.check_invariants());
}

TEST_F(DowntimeBookTest, FixedStartingNowStartsAtTheNextAdvance) {
  const unsigned long id = schedule(k_svc0, fixed(k_now - 50, k_now + 10));
  EXPECT_EQ(next_at(), k_now - 50);
  EXPECT_EQ(advance(k_now), (std::vector<Seen>{{Kind::started, id, true, true}}));
  EXPECT_EQ(book_.depth(ServiceId{0}), 1);
  EXPECT_EQ(book_.depth(HostId{0}), 0) << "a service's downtime is not its host's";
}

// Naemon's timed events keep the fraction of the second they were scheduled in: downtimes that start or
// stop in the same second go in the order of those fractions, whatever order they were added in.
TEST_F(DowntimeBookTest, EventsDueInTheSameSecondGoInTheOrderOfTheirPhases) {
  auto add = [&](DowntimeTarget target, state::Downtime request, std::uint32_t phase_us) {
    const DowntimeAdded added = book_.schedule(target, std::move(request), k_now, phase_us);
    EXPECT_TRUE(added.ok());
    return added.downtime_id;
  };
  const unsigned long late = add(k_host0, fixed(k_now + 10, k_now + 20), 900'000);
  const unsigned long early = add(k_svc0, fixed(k_now + 10, k_now + 20), 100'000);
  const unsigned long middle = add(k_svc1, fixed(k_now + 5, k_now + 20), 500'000);
  EXPECT_EQ(advance(k_now + 5), (std::vector<Seen>{{Kind::started, middle, true, true}}));
  EXPECT_EQ(advance(k_now + 10),
            (std::vector<Seen>{{Kind::started, early, true, true}, {Kind::started, late, true, true}}));
  EXPECT_EQ(advance(k_now + 20), (std::vector<Seen>{{Kind::stopped, early, true, true},
                                                    {Kind::stopped, middle, true, true},
                                                    {Kind::stopped, late, true, true}}));
}

// ... and runs that far into its second, not at the second: a downtime scheduled 0.6 s into a second starts
// 0.6 s into its start second, so a look at 0.3 s still sees it pending, as in Naemon.
TEST_F(DowntimeBookTest, AnEventIsDueOnlyOnceItsPhaseOfTheSecondHasCome) {
  const unsigned long id = book_.schedule(k_host0, fixed(k_now + 10, k_now + 20), k_now, 600'000).downtime_id;
  ASSERT_TRUE(book_.next_event().has_value());
  EXPECT_EQ(book_.next_event()->at, k_now + 10);
  EXPECT_EQ(book_.next_event()->phase_us, 600'000u);
  EXPECT_TRUE(book_.advance(k_now + 10, 300'000).empty());
  EXPECT_EQ(seen(book_.advance(k_now + 10, 600'000)), (std::vector<Seen>{{Kind::started, id, true, true}}));
  EXPECT_TRUE(book_.advance(k_now + 20, 599'999).empty());
  EXPECT_EQ(seen(book_.advance(k_now + 21, 0)), (std::vector<Seen>{{Kind::stopped, id, true, true}}));
}

// A flexible downtime takes the phase of the problem that starts it; a triggered one its trigger's.
TEST_F(DowntimeBookTest, FlexibleAndTriggeredDowntimesTakeThePhaseThatStartsThem) {
  const unsigned long trigger =
      book_.schedule(k_host0, fixed(k_now + 1, k_now + 30), k_now, 800'000).downtime_id;
  const unsigned long child =
      book_.schedule(k_svc0, fixed(k_now + 1, k_now + 30, trigger), k_now, 0).downtime_id;
  const unsigned long flex = book_.schedule(k_svc1, flexible(k_now, k_now + 100, 29), k_now, 0).downtime_id;
  EXPECT_EQ(book_.on_problem(ServiceId{1}, k_now + 1, 400'000), 1u);
  EXPECT_EQ(advance(k_now + 1), (std::vector<Seen>{{Kind::started, flex, true, true},
                                                   {Kind::started, trigger, true, true},
                                                   {Kind::started, child, true, true}}));
  EXPECT_EQ(advance(k_now + 30), (std::vector<Seen>{{Kind::stopped, flex, true, true},
                                                    {Kind::stopped, trigger, true, true},
                                                    {Kind::stopped, child, true, true}}));
}

// The core notifies after the whole batch: each event carries the depths of the moment it happened, so a
// service's DOWNTIMEEND just before its host's still shows the host in downtime, as Naemon's does.
TEST_F(DowntimeBookTest, EventsCarryTheirHostsDepthOfTheMoment) {
  const unsigned long svc = book_.schedule(k_svc0, fixed(k_now, k_now + 20), k_now, 100'000).downtime_id;
  const unsigned long host = book_.schedule(k_host0, fixed(k_now, k_now + 20), k_now, 200'000).downtime_id;
  const std::vector<DowntimeEvent> started = book_.advance(k_now);
  ASSERT_EQ(seen(started),
            (std::vector<Seen>{{Kind::started, svc, true, true}, {Kind::started, host, true, true}}));
  EXPECT_EQ(started[0].host_depth, 0) << "the host's downtime starts after the service's";
  EXPECT_EQ(started[1].host_depth, 0) << "a host's own event: its depth before it started";
  const std::vector<DowntimeEvent> stopped = book_.advance(k_now + 20);
  ASSERT_EQ(seen(stopped),
            (std::vector<Seen>{{Kind::stopped, svc, true, true}, {Kind::stopped, host, true, true}}));
  EXPECT_EQ(stopped[0].host_depth, 1) << "the host is still in downtime when the service's ends";
  EXPECT_EQ(stopped[1].host_depth, 0);
}

TEST_F(DowntimeBookTest, ScheduleRefusesBadTimesWithoutUsingAnId) {
  EXPECT_EQ(book_.schedule(k_host0, fixed(k_now + 10, k_now + 10), k_now).error, DowntimeError::bad_times);
  EXPECT_EQ(book_.schedule(k_host0, fixed(k_now - 20, k_now), k_now).error, DowntimeError::bad_times);
  EXPECT_EQ(book_.next_downtime_id(), 1u);
  // Past that check, Naemon has taken the id before it validates the rest.
  const DowntimeAdded orphan = book_.schedule(k_host0, fixed(k_now, k_now + 10, 77), k_now);
  EXPECT_EQ(orphan.error, DowntimeError::unknown_trigger);
  EXPECT_EQ(book_.schedule(k_host0, flexible(k_now, k_now + 10, 0), k_now).error, DowntimeError::no_duration);
  EXPECT_EQ(book_.next_downtime_id(), 3u);
  EXPECT_EQ(book_.size(), 0u);
}

// Commands read times unsigned, as Naemon does: "-1" and 18446744073709551615 arrive as -1, and a start
// that far beyond any end must not make a downtime that starts at once.
TEST_F(DowntimeBookTest, ScheduleRefusesTimesOutsideTheSignedRange) {
  constexpr std::int64_t k_min = std::numeric_limits<std::int64_t>::min();
  EXPECT_EQ(book_.schedule(k_host0, fixed(-1, k_now + 3600), k_now).error, DowntimeError::bad_times);
  EXPECT_EQ(book_.schedule(k_host0, fixed(k_min, k_now + 3600), k_now).error, DowntimeError::bad_times);
  EXPECT_EQ(book_.schedule(k_host0, flexible(-1, k_now + 3600, 60), k_now).error, DowntimeError::bad_times);
  EXPECT_EQ(book_.schedule(k_host0, fixed(k_now, -1), k_now).error, DowntimeError::bad_times);
  EXPECT_EQ(book_.size(), 0u);
  EXPECT_TRUE(advance(k_now + 1).empty()) << "nothing started";
  EXPECT_EQ(book_.next_downtime_id(), 1u);
}

TEST_F(DowntimeBookTest, FlexibleStartsOnAProblemInsideItsWindowOnly) {
  const unsigned long id = schedule(k_svc0, flexible(k_now + 100, k_now + 200, 600));
  EXPECT_EQ(book_.on_problem(ServiceId{0}, k_now + 99), 0u) << "before the window";
  EXPECT_EQ(book_.on_problem(ServiceId{1}, k_now + 150), 0u) << "another service";
  EXPECT_EQ(book_.on_problem(HostId{0}, k_now + 150), 0u) << "its host";
  EXPECT_TRUE(advance(k_now + 150).empty());

  EXPECT_EQ(book_.on_problem(ServiceId{0}, k_now + 150), 1u);
  EXPECT_EQ(book_.find(id)->flex_downtime_start, k_now + 150);
  EXPECT_FALSE(book_.find(id)->is_in_effect) << "it starts at the next advance, as Naemon's start event";
  EXPECT_EQ(next_at(), k_now + 150);
  EXPECT_EQ(advance(k_now + 150), (std::vector<Seen>{{Kind::started, id, true, true}}));
  EXPECT_EQ(book_.on_problem(ServiceId{0}, k_now + 160), 0u) << "already in effect";

  // It lasts its duration from the problem, past end_time; the expiry at end_time + 1 spares it.
  EXPECT_TRUE(advance(k_now + 749).empty());
  EXPECT_EQ(book_.depth(ServiceId{0}), 1);
  EXPECT_EQ(advance(k_now + 750), (std::vector<Seen>{{Kind::stopped, id, true, true}}));
  EXPECT_EQ(book_.size(), 0u);
}

TEST_F(DowntimeBookTest, FlexibleWindowEdgesAreInclusive) {
  schedule(k_host0, flexible(k_now + 100, k_now + 200, 60));
  schedule(k_host1, flexible(k_now + 100, k_now + 200, 60));
  EXPECT_EQ(book_.on_problem(HostId{0}, k_now + 100), 1u);
  EXPECT_EQ(book_.on_problem(HostId{1}, k_now + 200), 1u);
  EXPECT_EQ(book_.on_problem(HostId{1}, k_now + 201), 0u);
}

TEST_F(DowntimeBookTest, FlexibleThatNeverStartsExpires) {
  const unsigned long id = schedule(k_host0, flexible(k_now, k_now + 100, 60));
  EXPECT_EQ(next_at(), k_now + 101);
  EXPECT_EQ(book_.on_problem(HostId{0}, k_now + 101), 0u) << "after the window";
  EXPECT_TRUE(advance(k_now + 100).empty());
  const auto events = book_.advance(k_now + 101);
  // Naemon sends DOWNTIMEEND for it but logs nothing.
  EXPECT_EQ(seen(events), (std::vector<Seen>{{Kind::expired, id, false, true}}));
  EXPECT_EQ(downtime_alert_text(events[0].kind, events[0].downtime), "");
  EXPECT_EQ(book_.size(), 0u);
}

TEST_F(DowntimeBookTest, OnProblemIgnoresFixedAndTriggeredDowntimes) {
  const unsigned long parent = schedule(k_host1, fixed(k_now + 500, k_now + 600));
  schedule(k_svc0, fixed(k_now, k_now + 100));
  schedule(k_svc0, flexible(k_now, k_now + 100, 60, parent));
  EXPECT_EQ(book_.on_problem(ServiceId{0}, k_now + 10), 0u);
}

TEST_F(DowntimeBookTest, OverlappingDowntimesCountInTheDepth) {
  const unsigned long a = schedule(k_host0, fixed(k_now + 10, k_now + 100));
  const unsigned long b = schedule(k_host0, fixed(k_now + 20, k_now + 200));
  EXPECT_EQ(advance(k_now + 10), (std::vector<Seen>{{Kind::started, a, true, true}}));
  // Only the first start and the last stop are logged and notified.
  EXPECT_EQ(advance(k_now + 20), (std::vector<Seen>{{Kind::started, b, false, false}}));
  EXPECT_EQ(book_.depth(HostId{0}), 2);
  EXPECT_EQ(advance(k_now + 100), (std::vector<Seen>{{Kind::stopped, a, false, false}}));
  EXPECT_EQ(book_.depth(HostId{0}), 1);
  EXPECT_EQ(advance(k_now + 200), (std::vector<Seen>{{Kind::stopped, b, true, true}}));
  EXPECT_EQ(book_.depth(HostId{0}), 0);
}

TEST_F(DowntimeBookTest, TriggeredDowntimesStartAndStopWithTheirTrigger) {
  const unsigned long parent = schedule(k_host0, fixed(k_now + 10, k_now + 100));
  const unsigned long child_svc = schedule(k_svc0, fixed(k_now + 10, k_now + 500, parent));
  const unsigned long child_host = schedule(k_host1, fixed(k_now + 10, k_now + 500, parent));
  EXPECT_EQ(next_at(), k_now + 10) << "triggered ones arm no timer";
  EXPECT_EQ(advance(k_now + 10), (std::vector<Seen>{{Kind::started, parent, true, true},
                                                    {Kind::started, child_svc, true, true},
                                                    {Kind::started, child_host, true, true}}));
  // They end with their trigger, not at their own end_time.
  EXPECT_EQ(advance(k_now + 100), (std::vector<Seen>{{Kind::stopped, parent, true, true},
                                                     {Kind::stopped, child_svc, true, true},
                                                     {Kind::stopped, child_host, true, true}}));
  EXPECT_EQ(book_.size(), 0u);
  EXPECT_EQ(next_at(), std::nullopt);
}

TEST_F(DowntimeBookTest, ATriggeredDowntimeAddedLateBlipsWhenItsTriggerEnds) {
  // Naemon does not start a triggered downtime added after its trigger started; when the trigger ends it
  // starts it and stops it at once (both logged and notified), as the reference Naemon 1.5.2 does.
  const unsigned long parent = schedule(k_host0, fixed(k_now, k_now + 100));
  advance(k_now);
  const unsigned long late = schedule(k_svc0, flexible(k_now, k_now + 1000, 30, parent), k_now + 5);
  EXPECT_TRUE(advance(k_now + 50).empty());
  EXPECT_FALSE(book_.find(late)->is_in_effect);
  EXPECT_EQ(advance(k_now + 100), (std::vector<Seen>{{Kind::stopped, parent, true, true},
                                                     {Kind::started, late, true, true},
                                                     {Kind::stopped, late, true, true}}));
  EXPECT_EQ(book_.size(), 0u);
}

TEST_F(DowntimeBookTest, FlexibleTriggeredDowntimesTakeTheirTriggersStart) {
  const unsigned long parent = schedule(k_host0, flexible(k_now, k_now + 1000, 300));
  const unsigned long child = schedule(k_svc2, flexible(k_now, k_now + 1000, 60, parent));
  book_.on_problem(HostId{0}, k_now + 40);
  EXPECT_EQ(advance(k_now + 40),
            (std::vector<Seen>{{Kind::started, parent, true, true}, {Kind::started, child, true, true}}));
  EXPECT_EQ(book_.find(child)->flex_downtime_start, k_now + 40);
  EXPECT_EQ(advance(k_now + 100), (std::vector<Seen>{{Kind::stopped, child, true, true}}));
  EXPECT_EQ(advance(k_now + 340), (std::vector<Seen>{{Kind::stopped, parent, true, true}}));
}

TEST_F(DowntimeBookTest, AFlexibleDowntimeTriggeredByAFixedOneLastsItsDuration) {
  // Naemon copies the fixed trigger's flex_downtime_start (0), so the child would end at 0 + duration right
  // after it starts; Vedette counts its duration from the trigger's start (docs/compatibility.md).
  const unsigned long parent = schedule(k_host0, fixed(k_now + 10, k_now + 1000));
  const unsigned long child = schedule(k_svc0, flexible(k_now, k_now + 1000, 60, parent));
  const unsigned long fixed_child = schedule(k_svc1, fixed(k_now, k_now + 1000, parent));
  EXPECT_EQ(advance(k_now + 10).size(), 3u);
  EXPECT_EQ(book_.find(child)->flex_downtime_start, k_now + 10);
  EXPECT_EQ(book_.find(fixed_child)->flex_downtime_start, 0) << "a fixed child gets the trigger's value";
  EXPECT_EQ(advance(k_now + 70), (std::vector<Seen>{{Kind::stopped, child, true, true}}));
}

TEST_F(DowntimeBookTest, CancellingInEffectAlertsAndPendingDoesNot) {
  const unsigned long active = schedule(k_host0, fixed(k_now, k_now + 100));
  const unsigned long pending = schedule(k_host1, fixed(k_now + 50, k_now + 100));
  advance(k_now);
  auto removal = book_.unschedule(active);
  EXPECT_EQ(removal.matched, 1u);
  EXPECT_EQ(seen(removal.events), (std::vector<Seen>{{Kind::cancelled, active, true, true}}));
  EXPECT_EQ(book_.depth(HostId{0}), 0);
  removal = book_.unschedule(pending);
  EXPECT_EQ(seen(removal.events), (std::vector<Seen>{{Kind::cancelled, pending, false, false}}));
  EXPECT_EQ(next_at(), std::nullopt) << "its timers went with it";
  EXPECT_EQ(book_.unschedule(pending).matched, 0u);
  EXPECT_TRUE(book_.check_invariants());
}

TEST_F(DowntimeBookTest, CancellingWhileAnotherIsInEffectDoesNotAlert) {
  const unsigned long a = schedule(k_svc0, fixed(k_now, k_now + 100));
  schedule(k_svc0, fixed(k_now, k_now + 100));
  advance(k_now);
  EXPECT_EQ(seen(book_.unschedule(a).events), (std::vector<Seen>{{Kind::cancelled, a, false, false}}));
  EXPECT_EQ(book_.depth(ServiceId{0}), 1);
}

TEST_F(DowntimeBookTest, UnscheduleChecksTheType) {
  const unsigned long id = schedule(k_svc0, fixed(k_now + 10, k_now + 100));
  EXPECT_EQ(book_.unschedule(id, DowntimeType::host).matched, 0u) << "DEL_HOST_DOWNTIME with a service's id";
  EXPECT_EQ(book_.unschedule(id, DowntimeType::service).matched, 1u);
}

TEST_F(DowntimeBookTest, CancellingCascadesToTriggeredDowntimes) {
  const unsigned long parent = schedule(k_host0, fixed(k_now, k_now + 100));
  const unsigned long child = schedule(k_svc0, fixed(k_now, k_now + 100, parent));
  const unsigned long grandchild = schedule(k_host1, fixed(k_now, k_now + 100, child));
  advance(k_now);
  const unsigned long late_child = schedule(k_svc1, fixed(k_now, k_now + 100, parent), k_now + 1);
  const auto removal = book_.unschedule(parent);
  EXPECT_EQ(seen(removal.events), (std::vector<Seen>{{Kind::cancelled, parent, true, true},
                                                     {Kind::cancelled, child, true, true},
                                                     {Kind::cancelled, grandchild, true, true},
                                                     {Kind::cancelled, late_child, false, false}}));
  EXPECT_EQ(book_.size(), 0u);
  EXPECT_EQ(book_.depth(HostId{0}) + book_.depth(HostId{1}) + book_.depth(ServiceId{0}), 0);
}

// Starting, stopping and cancelling go on to what a downtime triggered: a chain is bounded, so that a
// million chained commands cannot take the core thread's stack (Naemon's recursion overflows it).
TEST_F(DowntimeBookTest, TriggerChainsAreBoundedAndWalkedWhole) {
  const unsigned long root = schedule(k_host0, fixed(k_now + 10, k_now + 100));
  unsigned long last = root;
  for (std::uint32_t i = 0; i < DowntimeBook::k_max_trigger_chain; ++i)
    last = schedule(i % 2 == 0 ? k_svc0 : k_host1, fixed(k_now + 10, k_now + 100, last));
  const DowntimeAdded too_deep = book_.schedule(k_svc1, fixed(k_now + 10, k_now + 100, last), k_now);
  EXPECT_EQ(too_deep.error, DowntimeError::trigger_too_deep);
  EXPECT_EQ(book_.size(), DowntimeBook::k_max_trigger_chain + 1);
  EXPECT_EQ(advance(k_now + 10).size(), DowntimeBook::k_max_trigger_chain + 1) << "all started with the root";
  const auto removal = book_.unschedule(root);
  EXPECT_EQ(removal.events.size(), DowntimeBook::k_max_trigger_chain + 1);
  EXPECT_EQ(book_.size(), 0u);
  EXPECT_EQ(book_.depth(HostId{0}) + book_.depth(HostId{1}) + book_.depth(ServiceId{0}), 0);
}

TEST_F(DowntimeBookTest, ExpiryDoesNotCascade) {
  // check_for_expired_downtime deletes (does not unschedule): what a never-started flexible downtime
  // triggered stays, and goes at a later sweep once its own end_time has passed.
  const unsigned long parent = schedule(k_host0, flexible(k_now, k_now + 100, 60));
  const unsigned long child = schedule(k_host1, fixed(k_now, k_now + 300, parent));
  schedule(k_svc2, flexible(k_now, k_now + 400, 60));  // its expiry runs at +401
  EXPECT_EQ(advance(k_now + 101), (std::vector<Seen>{{Kind::expired, parent, false, true}}));
  EXPECT_NE(book_.find(child), nullptr);
  EXPECT_TRUE(advance(k_now + 400).empty());
  const auto events = advance(k_now + 401);
  // In list order: at the same start_time the untriggered one first.
  EXPECT_EQ(events,
            (std::vector<Seen>{{Kind::expired, 3, false, true}, {Kind::expired, child, false, true}}));
}

TEST_F(DowntimeBookTest, ExpiredEventCarriesTheDepthForTheNotificationTest) {
  schedule(k_svc0, fixed(k_now, k_now + 1000));
  schedule(k_svc0, flexible(k_now, k_now + 100, 60));
  advance(k_now);
  const auto events = book_.advance(k_now + 101);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, Kind::expired);
  EXPECT_EQ(events[0].depth, 1) << "Naemon's viability test then drops the service's DOWNTIMEEND";
}

TEST_F(DowntimeBookTest, DeleteMatchingFilters) {
  const unsigned long host_dt = schedule(k_host0, fixed(k_now + 10, k_now + 100, 0, "maintenance"));
  const unsigned long svc0_dt = schedule(k_svc0, fixed(k_now + 20, k_now + 100, 0, "maintenance"));
  const unsigned long svc1_dt = schedule(k_svc1, fixed(k_now + 10, k_now + 100, 0, "other"));
  const unsigned long other_host = schedule(k_host1, fixed(k_now + 10, k_now + 100, 0, "maintenance"));

  EXPECT_EQ(book_.delete_matching({}).matched, 0u) << "no filter deletes nothing";

  EXPECT_EQ(book_.delete_matching({.service_description = "s1"}).matched, 0u);

  // Host 0 and comment "maintenance": its own downtime and its service's, unscheduled last match first.
  const auto removal = book_.delete_matching({.host = HostId{0}, .comment = "maintenance"});
  EXPECT_EQ(removal.matched, 2u);
  EXPECT_EQ(seen(removal.events), (std::vector<Seen>{{Kind::cancelled, svc0_dt, false, false},
                                                     {Kind::cancelled, host_dt, false, false}}));
  EXPECT_NE(book_.find(svc1_dt), nullptr);
  EXPECT_NE(book_.find(other_host), nullptr);

  // A start time alone; a service filter spares host downtimes.
  EXPECT_EQ(book_.delete_matching({.service_description = "h", .start_time = k_now + 10}).matched, 0u);
  const auto by_start = book_.delete_matching({.start_time = k_now + 10});
  EXPECT_EQ(by_start.matched, 2u);
  EXPECT_EQ(book_.size(), 0u);
}

TEST_F(DowntimeBookTest, DeleteMatchingByServiceDescription) {
  state::Downtime request = fixed(k_now + 10, k_now + 100);
  request.service_description = "HTTP";
  const unsigned long http0 = schedule(k_svc0, request);
  const unsigned long http2 = schedule(k_svc2, request);
  request.service_description = "SSH";
  schedule(k_svc1, request);
  schedule(k_host0, fixed(k_now + 10, k_now + 100));
  const auto removal = book_.delete_matching({.service_description = "HTTP"});
  EXPECT_EQ(seen(removal.events), (std::vector<Seen>{{Kind::cancelled, http2, false, false},
                                                     {Kind::cancelled, http0, false, false}}));
  EXPECT_EQ(book_.size(), 2u);
}

TEST_F(DowntimeBookTest, DeleteMatchingCountsMatchesACascadeRemoved) {
  const unsigned long parent = schedule(k_host0, fixed(k_now + 10, k_now + 100, 0, "x"));
  schedule(k_host0, fixed(k_now + 10, k_now + 100, parent, "x"));
  const auto removal = book_.delete_matching({.comment = "x"});
  EXPECT_EQ(removal.matched, 2u);
  EXPECT_EQ(removal.events.size(), 2u);  // the child went with its parent's cascade
  EXPECT_EQ(book_.size(), 0u);
}

TEST_F(DowntimeBookTest, SnapshotInNaemonListOrderAndReusedUntilAChange) {
  const unsigned long late = schedule(k_host0, fixed(k_now + 300, k_now + 400));
  const unsigned long a = schedule(k_host1, fixed(k_now + 100, k_now + 400));
  const unsigned long triggered = schedule(k_svc0, fixed(k_now + 100, k_now + 400, a));
  const unsigned long b = schedule(k_svc1, fixed(k_now + 100, k_now + 400));
  const unsigned long early = schedule(k_svc2, fixed(k_now + 50, k_now + 400));
  const auto first = book_.snapshot();
  EXPECT_EQ(ids_in(*first), (std::vector<unsigned long>{early, a, b, triggered, late}));
  EXPECT_EQ(book_.snapshot(), first);
  EXPECT_TRUE(advance(k_now + 10).empty());
  EXPECT_EQ(book_.snapshot(), first) << "nothing happened";
  advance(k_now + 50);
  const auto second = book_.snapshot();
  EXPECT_NE(second, first);
  EXPECT_TRUE((*second)[0].is_in_effect);
  EXPECT_FALSE((*first)[0].is_in_effect);
}

TEST_F(DowntimeBookTest, PerObjectQueries) {
  const unsigned long h0 = schedule(k_host0, fixed(k_now + 30, k_now + 100));
  const unsigned long s0 = schedule(k_svc0, fixed(k_now + 20, k_now + 100));
  const unsigned long s1 = schedule(k_svc1, fixed(k_now + 10, k_now + 100));
  schedule(k_svc2, fixed(k_now + 10, k_now + 100));
  EXPECT_EQ(book_.ids_of(HostId{0}), (std::vector<unsigned long>{h0}));
  EXPECT_EQ(book_.ids_of(ServiceId{0}), (std::vector<unsigned long>{s0}));
  EXPECT_EQ(book_.ids_on_host(HostId{0}), (std::vector<unsigned long>{s1, s0, h0}));
  EXPECT_TRUE(book_.ids_of(HostId{42}).empty());
  EXPECT_EQ(book_.depth(HostId{42}), 0);
  EXPECT_EQ(book_.target_of(s1)->service, ServiceId{1});
  EXPECT_FALSE(book_.target_of(999).has_value());
}

// What the reference Naemon 1.5.2 did across a restart (tests run by hand against /opt/naemon-ref): the
// list it wrote, re-read with equal start times in reverse file order; a fixed downtime whose window
// passed while it was down starts and stops at once, an unstarted flexible one expires in between.
TEST_F(DowntimeBookTest, LoadKeepsRecordsAndReevaluatesThemAsNaemonDoes) {
  const Time t = k_now + 1000;
  auto record = [](unsigned long id, state::Downtime d) {
    d.downtime_id = id;
    d.comment_id = id;
    return d;
  };
  book_.set_next_downtime_id(7);
  // status.dat/retention.dat order before the restart: 6, 5, then 1, 2, 4 at the same start, then 3.
  ASSERT_TRUE(book_.load(k_svc2, record(6, flexible(k_now + 1, k_now + 4, 60))).ok());
  ASSERT_TRUE(book_.load(k_svc0, record(5, fixed(k_now + 3, k_now + 5))).ok());
  ASSERT_TRUE(book_.load(k_host0, record(1, fixed(t, t + 100))).ok());
  ASSERT_TRUE(book_.load(k_host1, record(2, fixed(t, t + 100))).ok());
  ASSERT_TRUE(book_.load(k_svc1, record(4, fixed(t, t + 100))).ok());
  ASSERT_TRUE(book_.load(DowntimeTarget::of_host(HostId{2}), record(3, fixed(t, t + 100, 1))).ok());
  EXPECT_EQ(ids_in(*book_.snapshot()), (std::vector<unsigned long>{6, 5, 4, 2, 1, 3}));
  EXPECT_EQ(book_.next_downtime_id(), 7u);
  EXPECT_EQ(book_.find(5)->comment_id, 5u);

  EXPECT_EQ(advance(k_now + 10), (std::vector<Seen>{{Kind::started, 5, true, true},
                                                    {Kind::expired, 6, false, true},
                                                    {Kind::stopped, 5, true, true}}));
  EXPECT_TRUE(book_.check_invariants());
}

TEST_F(DowntimeBookTest, LoadRestoresDowntimesInEffect) {
  state::Downtime running = flexible(k_now - 100, k_now + 100, 600);
  running.downtime_id = 12;
  running.flex_downtime_start = k_now - 50;
  running.is_in_effect = true;
  running.start_notification_sent = true;
  ASSERT_TRUE(book_.load(k_svc0, running).ok());
  EXPECT_EQ(book_.depth(ServiceId{0}), 1);
  EXPECT_EQ(book_.next_downtime_id(), 13u) << "the counter moves past loaded ids";
  EXPECT_EQ(next_at(), k_now + 550) << "flex_downtime_start + duration";
  EXPECT_TRUE(advance(k_now).empty()) << "no second STARTED for one already in effect";
  EXPECT_EQ(advance(k_now + 550), (std::vector<Seen>{{Kind::stopped, 12, true, true}}));

  // An armed flexible downtime that had not started yet starts at its flex_downtime_start.
  state::Downtime armed = flexible(k_now, k_now + 1000, 60);
  armed.downtime_id = 20;
  armed.flex_downtime_start = k_now + 600;
  ASSERT_TRUE(book_.load(k_svc0, armed).ok());
  EXPECT_EQ(advance(k_now + 600), (std::vector<Seen>{{Kind::started, 20, true, true}}));

  // A start notification already sent is not sent again.
  state::Downtime notified = fixed(k_now + 700, k_now + 800);
  notified.downtime_id = 30;
  notified.start_notification_sent = true;
  ASSERT_TRUE(book_.load(k_host1, notified).ok());
  EXPECT_EQ(advance(k_now + 700), (std::vector<Seen>{{Kind::stopped, 20, true, true},  // at +660
                                                     {Kind::started, 30, true, false}}));
}

TEST_F(DowntimeBookTest, LoadRefusesWhatNaemonRefuses) {
  state::Downtime orphan = fixed(k_now, k_now + 100, 99);
  orphan.downtime_id = 5;
  EXPECT_EQ(book_.load(k_host0, orphan).error, DowntimeError::unknown_trigger)
      << "trigger not loaded before it";
  state::Downtime backwards = fixed(k_now + 100, k_now);
  backwards.downtime_id = 6;
  EXPECT_EQ(book_.load(k_host0, backwards).error, DowntimeError::bad_times);
  state::Downtime ok = fixed(k_now, k_now + 100);
  ok.downtime_id = 7;
  EXPECT_TRUE(book_.load(k_host0, ok).ok());
  EXPECT_EQ(book_.load(k_host1, ok).error, DowntimeError::id_in_use);
  state::Downtime past_trigger = fixed(k_now, k_now - 10, 7);  // triggered: its own times are not checked
  past_trigger.downtime_id = 8;
  EXPECT_TRUE(book_.load(k_host1, past_trigger).ok());
  EXPECT_EQ(book_.size(), 2u);
  EXPECT_EQ(book_.next_downtime_id(), 9u);
}

TEST_F(DowntimeBookTest, ManyCancellationsLeaveTheTimersRight) {
  // Cancelled timers stay in the heap until they come up or the heap is compacted; neither may lose or
  // revive one.
  std::vector<unsigned long> ids;
  for (int i = 0; i < 3000; ++i) {
    const Time start = k_now + 1000 + (i * 7919) % 5000;
    ids.push_back(i % 2 == 0 ? schedule(k_host0, fixed(start, start + 100))
                             : schedule(k_svc0, flexible(start, start + 100, 50)));
  }
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (i % 5 != 0) book_.unschedule(ids[i]);
  EXPECT_TRUE(book_.check_invariants());
  EXPECT_EQ(book_.size(), 600u);
  std::size_t started = 0, expired = 0, stopped = 0;
  for (Time now = k_now; now < k_now + 7000; now += 10) {
    for (const DowntimeEvent& e : book_.advance(now)) {
      started += e.kind == Kind::started;
      stopped += e.kind == Kind::stopped;
      expired += e.kind == Kind::expired;
    }
    ASSERT_TRUE(book_.check_invariants());
    const std::optional<Time> next = next_at();
    ASSERT_TRUE(!next || *next > now) << "a due timer was left behind";
  }
  EXPECT_EQ(started, 300u);  // every fixed one left
  EXPECT_EQ(stopped, 300u);
  EXPECT_EQ(expired, 300u);  // every flexible one left: no problem came
  EXPECT_EQ(book_.size(), 0u);
  EXPECT_EQ(next_at(), std::nullopt);
}

TEST_F(DowntimeBookTest, ClearForgetsEverythingButTheCounter) {
  schedule(k_host0, fixed(k_now, k_now + 100));
  advance(k_now);
  book_.clear();
  EXPECT_EQ(book_.size(), 0u);
  EXPECT_EQ(book_.depth(HostId{0}), 0);
  EXPECT_EQ(next_at(), std::nullopt);
  EXPECT_EQ(book_.next_downtime_id(), 2u);
  EXPECT_TRUE(book_.check_invariants());
}

class LocalTimeZone {
 public:
  explicit LocalTimeZone(const char* zone) {
    if (const char* old = std::getenv("TZ")) old_ = old;
    ::setenv("TZ", zone, 1);
    ::tzset();
  }
  ~LocalTimeZone() {
    if (old_)
      ::setenv("TZ", old_->c_str(), 1);
    else
      ::unsetenv("TZ");
    ::tzset();
  }

 private:
  std::optional<std::string> old_;
};

TEST(DowntimeTexts, CommentTextsAsNaemonWritesThem) {
  LocalTimeZone utc("UTC");
  state::Downtime d = fixed(1'716'199'200, 1'716'206'400);  // 2024-05-20 10:00 to 12:00 UTC
  EXPECT_EQ(
      downtime_comment_text(d, config::DateFormat::us),
      "This host has been scheduled for fixed downtime from 05-20-2024 10:00:00 to 05-20-2024 12:00:00.  "
      "Notifications for the host will not be sent out during that time period.");
  d.is_service = true;
  d.fixed = false;
  d.duration = 5430;  // 1 h 30 min 30 s: seconds are dropped
  EXPECT_EQ(downtime_comment_text(d, config::DateFormat::euro),
            "This service has been scheduled for flexible downtime starting between 20-05-2024 10:00:00 and "
            "20-05-2024 12:00:00 and lasting for a period of 1 hours and 30 minutes.  Notifications for the "
            "service will not be sent out during that time period.");
  d.fixed = true;
  EXPECT_NE(downtime_comment_text(d, config::DateFormat::iso8601).find("from 2024-05-20 10:00:00 to"),
            std::string::npos);
  EXPECT_NE(downtime_comment_text(d, config::DateFormat::strict_iso8601).find("from 2024-05-20T10:00:00 to"),
            std::string::npos);
}

TEST(DowntimeTexts, AlertLinesAsNaemonLogsThem) {
  state::Downtime host{.host_name = "web01"};
  state::Downtime service{.is_service = true, .host_name = "web01", .service_description = "HTTP"};
  EXPECT_EQ(downtime_alert_text(Kind::started, host),
            "HOST DOWNTIME ALERT: web01;STARTED; Host has entered a period of scheduled downtime");
  EXPECT_EQ(downtime_alert_text(Kind::stopped, host),
            "HOST DOWNTIME ALERT: web01;STOPPED; Host has exited from a period of scheduled downtime");
  EXPECT_EQ(downtime_alert_text(Kind::cancelled, host),
            "HOST DOWNTIME ALERT: web01;CANCELLED; Scheduled downtime for host has been cancelled.");
  EXPECT_EQ(downtime_alert_text(Kind::started, service),
            "SERVICE DOWNTIME ALERT: web01;HTTP;STARTED; Service has entered a period of scheduled downtime");
  EXPECT_EQ(
      downtime_alert_text(Kind::stopped, service),
      "SERVICE DOWNTIME ALERT: web01;HTTP;STOPPED; Service has exited from a period of scheduled downtime");
  EXPECT_EQ(
      downtime_alert_text(Kind::cancelled, service),
      "SERVICE DOWNTIME ALERT: web01;HTTP;CANCELLED; Scheduled downtime for service has been cancelled.");
  EXPECT_EQ(downtime_alert_text(Kind::expired, service), "");
}

TEST(DowntimeComments, EnsureAddsOneCommentUnlessItExists) {
  LocalTimeZone utc("UTC");
  DowntimeBook downtimes;
  CommentBook comments;
  state::Downtime request = fixed(k_now + 10, k_now + 100);
  request.service_description = "HTTP";
  const unsigned long id =
      downtimes.schedule(DowntimeTarget::of_service(HostId{0}, ServiceId{4}), request, k_now).downtime_id;
  const unsigned long comment_id =
      ensure_downtime_comment(downtimes, comments, id, k_now + 1, config::DateFormat::us);
  EXPECT_EQ(comment_id, 1u);
  EXPECT_EQ(downtimes.find(id)->comment_id, comment_id);
  const state::Comment* c = comments.find(comment_id);
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->is_service);
  EXPECT_EQ(c->service_description, "HTTP");
  EXPECT_EQ(c->entry_type, k_downtime_comment);
  EXPECT_EQ(c->source, k_comment_source_internal);
  EXPECT_FALSE(c->persistent);
  EXPECT_EQ(c->entry_time, k_now + 1);
  EXPECT_EQ(c->author, "admin");
  EXPECT_EQ(c->comment_data.rfind("This service has been scheduled for fixed downtime from ", 0), 0u);
  EXPECT_EQ(comments.ids_of(ServiceId{4}), (std::vector<unsigned long>{comment_id}));
  EXPECT_EQ(ensure_downtime_comment(downtimes, comments, id, k_now + 2, config::DateFormat::us), comment_id);
  EXPECT_EQ(comments.size(), 1u);
  EXPECT_EQ(ensure_downtime_comment(downtimes, comments, 999, k_now, config::DateFormat::us), 0u);
}

// Random schedules, loads, problems, cancellations and time steps: the book's own invariants hold after
// every operation, the list stays in Naemon's order and every downtime that leaves was announced once.
TEST(DowntimeBookRandom, InvariantsHoldUnderRandomOperations) {
  std::mt19937_64 rng(3);
  DowntimeBook book;
  Time now = k_now;
  std::map<unsigned long, int> starts;  // id -> started events minus stopped ones
  std::size_t removed = 0, added = 0;
  const auto record = [&](const std::vector<DowntimeEvent>& events) {
    for (const DowntimeEvent& e : events) {
      if (e.kind == Kind::started) {
        ASSERT_EQ(starts[e.downtime.downtime_id]++, 0) << "started twice";
      } else {
        ++removed;
        ASSERT_EQ(book.find(e.downtime.downtime_id), nullptr) << "announced as gone but still there";
      }
    }
  };
  for (int op = 0; op < 4000; ++op) {
    const auto host = static_cast<std::uint32_t>(rng() % 5);
    const auto service = static_cast<std::uint32_t>(rng() % 10);
    const DowntimeTarget target = rng() % 2 == 0
                                      ? DowntimeTarget::of_host(HostId{host})
                                      : DowntimeTarget::of_service(HostId{service / 2}, ServiceId{service});
    switch (rng() % 7) {
      case 0:
      case 1: {
        const Time start = now + static_cast<Time>(rng() % 200) - 50;
        const Time end = start + 1 + static_cast<Time>(rng() % 300);
        unsigned long trigger = 0;
        if (book.size() > 0 && rng() % 3 == 0) trigger = 1 + rng() % book.next_downtime_id();
        state::Downtime d =
            rng() % 2 == 0 ? fixed(start, end, trigger) : flexible(start, end, 1 + rng() % 200, trigger);
        if (book.schedule(target, d, now).ok()) ++added;
        break;
      }
      case 2:
        book.on_problem(HostId{host}, now);
        book.on_problem(ServiceId{service}, now);
        break;
      case 3:
        if (book.size() > 0) record(book.unschedule(1 + rng() % book.next_downtime_id()).events);
        break;
      case 4:
        if (rng() % 4 == 0) record(book.delete_matching({.host = HostId{host}}).events);
        break;
      default:
        now += static_cast<Time>(rng() % 40);
        record(book.advance(now));
        break;
    }
    ASSERT_TRUE(book.check_invariants()) << "op " << op;
    const auto list = book.snapshot();
    ASSERT_EQ(list->size(), book.size());
    ASSERT_TRUE(
        std::is_sorted(list->begin(), list->end(), [](const state::Downtime& a, const state::Downtime& b) {
          if (a.start_time != b.start_time) return a.start_time < b.start_time;
          return a.triggered_by == 0 && b.triggered_by != 0;
        }));
  }
  EXPECT_EQ(added, removed + book.size());
  EXPECT_GT(removed, 100u);
}

}  // namespace
}  // namespace vedette::engine
