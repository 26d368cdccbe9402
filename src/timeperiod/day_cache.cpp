#include "timeperiod/day_cache.hpp"

#include <cstdlib>
#include <initializer_list>
#include <iterator>
#include <limits>

namespace vedette::timeperiod {
namespace {

constexpr std::time_t k_hour = 3600;
constexpr std::time_t k_day = 86400;
// A local date lasts 23-25 h in practice, up to 48 h when a zone moved across the date line; beyond this the
// day is not cached.
constexpr int k_max_scan_hours = 50;
// Bounds memory (48 bytes + map node per segment); ~1.5 segments per local day, so about 60 years of days.
// The engine touches a few days around "now", so in practice this only trips in long simulations.
constexpr std::size_t k_max_segments = 1U << 15;
constexpr std::size_t k_max_month_answers = 1U << 16;

enum MonthKind : int { k_day_of_month, k_weekday_of_month, k_calendar_date };

// The part of localtime_r's answer that decides the LocalDay: local date and tm_isdst.
struct DayKey {
  bool ok = false;
  int year = 0, month = 0, mday = 0, isdst = 0;
  int seconds_into_day = 0;  // not part of the identity

  [[nodiscard]] bool same_day(const DayKey& o) const {
    return ok && o.ok && year == o.year && month == o.month && mday == o.mday && isdst == o.isdst;
  }
};

DayKey probe(std::time_t t) {
  std::tm tm{};
  DayKey key;
  if (localtime_r(&t, &tm) == nullptr) return key;
  key.ok = true;
  key.year = tm.tm_year;
  key.month = tm.tm_mon;
  key.mday = tm.tm_mday;
  key.isdst = tm.tm_isdst;
  key.seconds_into_day = tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec;
  return key;
}

// Walks away from `t` an hour at a time until the day key changes, then bisects that hour. Returns the first
// instant of the segment (direction -1) or the first instant after it (direction +1); false if no change
// was found within k_max_scan_hours. Assumes the key does not change and change back within one hour.
bool find_boundary(std::time_t t, const DayKey& key, int direction, std::time_t& boundary) {
  std::time_t inside = t;
  std::time_t outside = t;
  bool found = false;
  for (int i = 1; i <= k_max_scan_hours; ++i) {
    const std::time_t x = t + direction * i * k_hour;
    if (!key.same_day(probe(x))) {
      outside = x;
      found = true;
      break;
    }
    inside = x;
  }
  if (!found) return false;
  while (inside - outside > 1 || outside - inside > 1) {
    const std::time_t mid = inside + (outside - inside) / 2;
    if (key.same_day(probe(mid))) {
      inside = mid;
    } else {
      outside = mid;
    }
  }
  boundary = direction < 0 ? inside : outside;
  return true;
}

}  // namespace

std::size_t DayCache::MonthKeyHash::operator()(const MonthKey& k) const {
  std::uint64_t h = 0x9E37'79B9'7F4A'7C15ULL;
  for (int v : {k.kind, k.year, k.month, k.a, k.b}) {
    h ^= static_cast<std::uint32_t>(v);
    h *= 0xFF51'AFD7'ED55'8CCDULL;
    h ^= h >> 32;
  }
  return static_cast<std::size_t>(h);
}

DayCache::DayCache() {
  reset();
}

void DayCache::reset() {
  segments_.clear();
  last_ = nullptr;
  months_.clear();
  const char* tz = std::getenv("TZ");
  tz_set_ = tz != nullptr;
  tz_ = tz_set_ ? tz : "";
  tzset();  // localtime_r does not reread TZ by itself
}

bool DayCache::reset_if_zone_changed() {
  const char* tz = std::getenv("TZ");
  const bool same = tz == nullptr ? !tz_set_ : tz_set_ && tz_ == tz;  // compared in place: no allocation
  if (same) return false;
  reset();
  return true;
}

DayCache::Stats DayCache::stats() const {
  Stats s = stats_;
  s.segments = segments_.size();
  return s;
}

LocalDay DayCache::local_day(std::time_t t) {
  const Segment& seg = find_or_build(t);
  if (seg.cacheable) return seg.day;
  ++stats_.uncacheable_lookups;
  return compute_local_day(t);
}

const DayCache::Segment& DayCache::find_or_build(std::time_t t) {
  if (last_ != nullptr && t >= last_->lo && t < last_->hi) {
    ++stats_.hits;
    return *last_;
  }
  auto next = segments_.upper_bound(t);  // first segment ending after t
  if (next != segments_.end() && next->second.lo <= t) {
    ++stats_.hits;
    last_ = &next->second;
    return *last_;
  }
  ++stats_.misses;
  // The gap between the neighbours that t falls into; a new segment is clipped to it so none overlap.
  std::time_t gap_lo = std::numeric_limits<std::time_t>::min();
  std::time_t gap_hi = std::numeric_limits<std::time_t>::max();
  if (next != segments_.end()) gap_hi = next->second.lo;
  if (next != segments_.begin()) gap_lo = std::prev(next)->second.hi;

  Segment seg = build_segment(t);
  if (seg.lo < gap_lo) seg.lo = gap_lo;
  if (seg.hi > gap_hi) seg.hi = gap_hi;
  if (segments_.size() >= k_max_segments) segments_.clear();
  last_ = &segments_.insert_or_assign(seg.hi, seg).first->second;
  return *last_;
}

DayCache::Segment DayCache::build_segment(std::time_t t) const {
  Segment seg;
  constexpr std::time_t k_margin = (k_max_scan_hours + 2) * k_hour;
  const bool convertible = t > std::numeric_limits<std::time_t>::min() + k_margin &&
                           t < std::numeric_limits<std::time_t>::max() - k_margin;
  const DayKey key = convertible ? probe(t) : DayKey{};
  if (!key.ok) {
    seg.lo = t;
    seg.hi = t == std::numeric_limits<std::time_t>::max() ? t : t + 1;
    seg.cacheable = false;
    return seg;
  }
  // Ordinary day: the offset at t holds from local 00:00 to 24:00, so four probes confirm the bounds.
  const std::time_t lo_guess = t - key.seconds_into_day;
  const std::time_t hi_guess = lo_guess + k_day;
  const bool lo_ok = key.same_day(probe(lo_guess)) && !key.same_day(probe(lo_guess - 1));
  const bool hi_ok = key.same_day(probe(hi_guess - 1)) && !key.same_day(probe(hi_guess));
  seg.lo = lo_guess;
  seg.hi = hi_guess;
  // A day with a switch in it (or a leap second) needs the search.
  if ((!lo_ok && !find_boundary(t, key, -1, seg.lo)) || (!hi_ok && !find_boundary(t, key, +1, seg.hi))) {
    seg.lo = t - k_day;
    seg.hi = t + k_day;
    seg.cacheable = false;
    return seg;
  }
  seg.day = compute_local_day(t);
  if (!seg.day.known) seg.cacheable = false;
  return seg;
}

std::time_t DayCache::memo(const MonthKey& key) {
  const auto found = months_.find(key);
  if (found != months_.end()) {
    ++stats_.hits;
    return found->second;
  }
  ++stats_.misses;
  std::time_t value = 0;
  switch (key.kind) {
    case k_day_of_month:
      value = compute_day_of_month(key.year, key.month, key.a);
      break;
    case k_weekday_of_month:
      value = compute_weekday_of_month(key.year, key.month, key.a, key.b);
      break;
    default:
      value = compute_calendar_date(key.year, key.month, key.a);
      break;
  }
  if (months_.size() >= k_max_month_answers) months_.clear();
  months_.emplace(key, value);
  return value;
}

std::time_t DayCache::day_of_month(int year, int month, int monthday) {
  return memo({k_day_of_month, year, month, monthday, 0});
}

std::time_t DayCache::weekday_of_month(int year, int month, int weekday, int offset) {
  return memo({k_weekday_of_month, year, month, weekday, offset});
}

std::time_t DayCache::calendar_date(int year, int month, int monthday) {
  return memo({k_calendar_date, year, month, monthday, 0});
}

}  // namespace vedette::timeperiod
