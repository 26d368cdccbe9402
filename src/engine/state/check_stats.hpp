// Naemon's check statistics: how many checks of each kind (files::CheckStat) ran in the last 1, 5 and 15
// minutes, as status.dat's programstatus (`active_scheduled_service_check_stats=…`), naemonstats and
// Livestatus' rate columns report them. Core thread only; no clock of its own (every call takes `now`).
//
//   CheckStats stats(program_start);
//   stats.count(files::CheckStat::passive_service, result_time, now);
//   const auto lines = stats.report(now);  // [kind][0..2] = 1, 5, 15 minutes
#pragma once

#include "engine/state/check_state.hpp"
#include "files/check_stat.hpp"

#include <array>
#include <cstddef>

namespace vedette::engine {

// Reproduces Naemon's update_check_stats/generate_check_stats (utils.c): fifteen one-minute buckets
// counted from program_start, an overflow bucket for the minute about to be reused, and the report weighing
// the oldest partial minute by how far the current one has gone. Naemon's integer rounding included, so
// the figures are the same for the same checks.
class CheckStats {
 public:
  static constexpr std::size_t k_kinds = static_cast<std::size_t>(files::CheckStat::count);
  using Report = std::array<std::array<int, 3>, k_kinds>;

  explicit CheckStats(Time program_start = 0) : program_start_(program_start) {}

  // One check of `kind` at `when` (0: now).
  void count(files::CheckStat kind, Time when, Time now);
  // Every kind's 1/5/15-minute counts at `now`. Ages the buckets as Naemon's status dump does.
  [[nodiscard]] Report report(Time now);

 private:
  static constexpr int k_buckets = 15;
  struct Kind {
    std::array<int, k_buckets> bucket{};
    int overflow = 0;
    int current = 0;
    Time last_update = 0;
  };
  int bucket_of(Time t) const;
  void age(Kind& k, int new_current, Time now);

  Time program_start_;
  std::array<Kind, k_kinds> kinds_{};
};

}  // namespace vedette::engine
