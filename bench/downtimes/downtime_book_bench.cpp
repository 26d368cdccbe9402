// Can 300,000 downtimes and their comments slow start-up, reload or the core thread? (Naemon users saw a
// restart take over 15 minutes at that size: sorted-list inserts and whole-list scans per downtime.)
// 100,000 services with 3 downtimes each, every downtime with its comment, on the engine's books:
//   Load      retention.dat's records into both books (what start-up and every reload do)
//   Schedule  SCHEDULE_SVC_DOWNTIME 300k times, each with its comment (text formatted as Naemon does)
//   Find      random lookups by id, in both books
//   Unschedule DEL_SVC_DOWNTIME of every downtime in random order, and its comment
//   Advance   time moved in 60 s steps through every start and stop of a day of downtimes
//   Snapshot  the status.dat/retention.dat lists, after a change and when nothing changed
//
//   build/<dir>/bench/downtime_book_bench --benchmark_min_time=1x

#include "config/main_config.hpp"
#include "engine/books/comment_book.hpp"
#include "engine/books/downtime_book.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace vedette::engine {
namespace {

constexpr std::uint32_t k_services = 100'000;
constexpr std::uint32_t k_per_service = 3;
constexpr std::uint32_t k_downtimes = k_services * k_per_service;
constexpr std::uint32_t k_services_per_host = 10;
constexpr Time k_start = 1'700'000'000;
constexpr Time k_day = 86'400;

DowntimeTarget target_of(std::uint32_t service) {
  return DowntimeTarget::of_service(model::HostId{service / k_services_per_host}, model::ServiceId{service});
}

// Downtime i: service i / 3; starts spread over a day, 1-4 h long; every fourth flexible; a tenth in effect
// when loaded. Ids 1..n as retention.dat would number them.
state::Downtime downtime(std::uint32_t i, std::mt19937_64& rng) {
  const Time start = k_start + static_cast<Time>(rng() % k_day);
  const Time end = start + 3600 * static_cast<Time>(1 + rng() % 4);
  state::Downtime d{.is_service = true,
                    .host_name = "host" + std::to_string(i / k_per_service / k_services_per_host),
                    .service_description = "service" + std::to_string(i / k_per_service),
                    .entry_time = k_start - 60,
                    .start_time = start,
                    .end_time = end,
                    .fixed = i % 4 != 0,
                    .duration = static_cast<unsigned long>(i % 4 != 0 ? end - start : 1800),
                    .author = "admin",
                    .comment = "planned maintenance"};
  return d;
}

struct Fixture {
  std::vector<state::Downtime> downtimes;
  std::vector<state::Comment> comments;
  Fixture() {
    std::mt19937_64 rng(1);
    downtimes.reserve(k_downtimes);
    comments.reserve(k_downtimes);
    for (std::uint32_t i = 0; i < k_downtimes; ++i) {
      state::Downtime d = downtime(i, rng);
      d.downtime_id = i + 1;
      d.comment_id = i + 1;
      if (i % 10 == 0 && d.fixed) {  // in effect at load: started before k_start
        d.start_time = k_start - 600;
        d.is_in_effect = true;
        d.start_notification_sent = true;
      }
      comments.push_back({.is_service = true,
                          .host_name = d.host_name,
                          .service_description = d.service_description,
                          .entry_type = k_downtime_comment,
                          .comment_id = i + 1,
                          .entry_time = d.entry_time,
                          .author = d.author,
                          .comment_data = "This service has been scheduled for fixed downtime from ..."});
      downtimes.push_back(std::move(d));
    }
  }
};

const Fixture& fixture() {
  static const Fixture f;
  return f;
}

void load(DowntimeBook& downtimes, CommentBook& comments) {
  const Fixture& f = fixture();
  comments.reserve(f.comments.size());  // the core knows the counts from retention::ApplyResult
  downtimes.reserve(f.downtimes.size());
  for (std::uint32_t i = 0; i < k_downtimes; ++i)
    comments.add(model::ServiceId{i / k_per_service}, f.comments[i]);
  for (std::uint32_t i = 0; i < k_downtimes; ++i) {
    const unsigned long id = downtimes.load(target_of(i / k_per_service), f.downtimes[i]).downtime_id;
    ensure_downtime_comment(downtimes, comments, id, k_start,
                            config::DateFormat::us);  // finds the retained one
  }
}

void BM_Load(benchmark::State& state) {
  fixture();
  for (auto _ : state) {
    auto downtimes = std::make_unique<DowntimeBook>();
    auto comments = std::make_unique<CommentBook>();
    load(*downtimes, *comments);
    benchmark::DoNotOptimize(downtimes->size());
    state.PauseTiming();  // freeing 600k records is not part of loading
    downtimes.reset();
    comments.reset();
    state.ResumeTiming();
  }
  state.counters["ns_per_downtime_and_comment"] =
      benchmark::Counter(static_cast<double>(k_downtimes),
                         benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Load)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_Schedule(benchmark::State& state) {
  std::vector<state::Downtime> requests;
  std::mt19937_64 rng(2);
  for (std::uint32_t i = 0; i < k_downtimes; ++i) requests.push_back(downtime(i, rng));
  for (auto _ : state) {
    DowntimeBook downtimes;
    CommentBook comments;
    for (std::uint32_t i = 0; i < k_downtimes; ++i) {
      const DowntimeAdded added = downtimes.schedule(target_of(i / k_per_service), requests[i], k_start);
      ensure_downtime_comment(downtimes, comments, added.downtime_id, k_start, config::DateFormat::us);
    }
    benchmark::DoNotOptimize(downtimes.size());
  }
  state.counters["ns_per_downtime"] =
      benchmark::Counter(static_cast<double>(k_downtimes),
                         benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Schedule)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_Find(benchmark::State& state) {
  DowntimeBook downtimes;
  CommentBook comments;
  load(downtimes, comments);
  std::mt19937_64 rng(3);
  std::vector<unsigned long> ids(1 << 16);
  for (unsigned long& id : ids) id = 1 + rng() % k_downtimes;
  std::size_t i = 0;
  for (auto _ : state) {
    const unsigned long id = ids[i++ & (ids.size() - 1)];
    benchmark::DoNotOptimize(downtimes.find(id));
    benchmark::DoNotOptimize(comments.find(id));
  }
  state.counters["ns_per_pair"] =
      benchmark::Counter(1, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Find);

void BM_Unschedule(benchmark::State& state) {
  std::vector<unsigned long> order(k_downtimes);
  std::iota(order.begin(), order.end(), 1ul);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(4));
  for (auto _ : state) {
    state.PauseTiming();
    DowntimeBook downtimes;
    CommentBook comments;
    load(downtimes, comments);
    state.ResumeTiming();
    for (const unsigned long id : order)
      for (const DowntimeEvent& e : downtimes.unschedule(id).events) comments.remove(e.downtime.comment_id);
    benchmark::DoNotOptimize(downtimes.size());
  }
  state.counters["ns_per_delete"] =
      benchmark::Counter(static_cast<double>(k_downtimes),
                         benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Unschedule)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_AdvanceThroughTheDay(benchmark::State& state) {
  std::size_t transitions = 0;
  for (auto _ : state) {
    state.PauseTiming();
    DowntimeBook downtimes;
    CommentBook comments;
    load(downtimes, comments);
    state.ResumeTiming();
    transitions = 0;
    // Problems on a tenth of the services every step start some flexible downtimes too.
    std::uint32_t next_problem = 0;
    for (Time now = k_start; now <= k_start + 2 * k_day; now += 60) {
      for (int i = 0; i < 35; ++i) {
        downtimes.on_problem(model::ServiceId{next_problem}, now);
        next_problem = (next_problem + 10) % k_services;
      }
      for (const DowntimeEvent& e : downtimes.advance(now)) {
        ++transitions;
        if (e.kind != DowntimeEvent::Kind::started) comments.remove(e.downtime.comment_id);
      }
    }
    benchmark::DoNotOptimize(downtimes.size());
  }
  state.counters["transitions"] = static_cast<double>(transitions);
  state.counters["ns_per_transition"] =
      benchmark::Counter(static_cast<double>(transitions),
                         benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_AdvanceThroughTheDay)->Unit(benchmark::kMillisecond)->Iterations(3);

// 0: nothing changed since the last call. 1: a change, and the writer let go of the previous list (the
// usual case: the buffers take turns). 2: a change while the writer still holds the last two lists.
void BM_Snapshot(benchmark::State& state) {
  DowntimeBook downtimes;
  CommentBook comments;
  load(downtimes, comments);
  const auto mode = state.range(0);
  unsigned long comment_id = 1;
  std::shared_ptr<const std::vector<state::Downtime>> held_downtimes[2];
  std::shared_ptr<const std::vector<state::Comment>> held_comments[2];
  // Warm up: both buffers exist, as after the first two status.dat updates.
  for (int i = 0; i < 2; ++i) {
    downtimes.set_comment_id(1, comment_id);
    comments.remove(comment_id++);
    benchmark::DoNotOptimize(downtimes.snapshot()->data());
    benchmark::DoNotOptimize(comments.snapshot()->data());
  }
  for (auto _ : state) {
    if (mode != 0) {
      state.PauseTiming();
      downtimes.set_comment_id(1, comment_id);  // any change rebuilds a list
      comments.remove(comment_id++);
      state.ResumeTiming();
    }
    auto d = downtimes.snapshot();
    auto c = comments.snapshot();
    benchmark::DoNotOptimize(d->data());
    benchmark::DoNotOptimize(c->data());
    if (mode == 2) {
      held_downtimes[comment_id % 2] = std::move(d);
      held_comments[comment_id % 2] = std::move(c);
    }
  }
}
BENCHMARK(BM_Snapshot)->Arg(0)->Arg(1)->Arg(2)->ArgName("mode")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vedette::engine
