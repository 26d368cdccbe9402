#include "config/timeperiod_parser.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace vedette::config {
namespace {

using timeperiod::DateRange;
using timeperiod::DateRangeType;
using timeperiod::TimeRange;

// Naemon recognises a line by trying a fixed list of sscanf() formats in order; the first that converts all
// of its fields decides the meaning, and text after the last field is ignored. To accept exactly the same
// lines we reproduce glibc sscanf's behaviour for the handful of directives those formats use, written in a
// one-character-per-step notation:
//   ' '  skip any whitespace, including none           'a'  one or more of a-z (no whitespace skipped)
//   'd'  skip whitespace, then a signed integer         '2' '4'  the same, at most that many characters
//   'g'  one or more spaces or tabs, not stored         't'  one or more of "0123456789:, -"
//   anything else: that character, literally
struct Field {
  int number = 0;
  std::string_view text;
};
using Fields = std::array<Field, 8>;

bool is_c_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_time_char(char c) {
  return is_digit(c) || c == ':' || c == ',' || c == ' ' || c == '-';
}

// strtol() saturates at the limits of long and the result is then narrowed to int (modulo 2^32 with g++), as
// sscanf's %d and atoi() do in glibc; reproduced so that absurd numbers land where they land in Naemon.
int narrow_like_libc(std::string_view digits, bool negative) {
  std::int64_t value = 0;
  for (char c : digits) {
    const int digit = c - '0';
    if (value > (LLONG_MAX - digit) / 10) {
      value = LLONG_MAX;
      break;
    }
    value = value * 10 + digit;
  }
  if (negative) value = (value == LLONG_MAX) ? LLONG_MIN : -value;
  return static_cast<int>(value);
}

// Returns the number of fields filled, as sscanf would before its first failure.
std::size_t scan(std::string_view in, std::string_view pattern, Fields& out) {
  std::size_t pos = 0;
  std::size_t filled = 0;
  auto take_while = [&](auto pred) {
    const std::size_t from = pos;
    while (pos < in.size() && pred(in[pos])) ++pos;
    return in.substr(from, pos - from);
  };
  for (char step : pattern) {
    switch (step) {
      case ' ':
        take_while(is_c_space);
        break;
      case 'a': {
        const std::string_view word = take_while([](char c) { return c >= 'a' && c <= 'z'; });
        if (word.empty()) return filled;
        out[filled++].text = word;
        break;
      }
      case 't': {
        const std::string_view times = take_while(is_time_char);
        if (times.empty()) return filled;
        out[filled++].text = times;
        break;
      }
      case 'g':
        if (take_while([](char c) { return c == ' ' || c == '\t'; }).empty()) return filled;
        break;
      case 'd':
      case '2':
      case '4': {
        take_while(is_c_space);
        std::size_t width = step == 'd' ? in.size() : static_cast<std::size_t>(step - '0');
        bool negative = false;
        if (pos < in.size() && width > 0 && (in[pos] == '-' || in[pos] == '+')) {
          negative = in[pos] == '-';
          ++pos;
          --width;
        }
        const std::size_t from = pos;
        while (pos < in.size() && pos - from < width && is_digit(in[pos])) ++pos;
        if (pos == from) return filled;
        out[filled++].number = narrow_like_libc(in.substr(from, pos - from), negative);
        break;
      }
      default:
        if (pos >= in.size() || in[pos] != step) return filled;
        ++pos;
        break;
    }
  }
  return filled;
}

std::size_t fields_in(std::string_view pattern) {
  std::size_t n = 0;
  for (char step : pattern) n += (step == 'a' || step == 'd' || step == '2' || step == '4' || step == 't');
  return n;
}

// What a recognised line means; the fields are in the order of the pattern, time list last.
enum class Form {
  calendar_range,        // 2007-01-01 - 2008-02-01
  calendar_single,       // 2007-01-01
  month_week_day_range,  // monday -1 may - thursday 2 june
  name_range,            // monday 2 - thursday 3 | february 1 - march 15 | day 4 - day 6
  name_short_range,      // monday 2 - 4 | february 1 - 15 | day 1 - 15
  name_single,           // monday 2 | february 3 | day -1
  month_week_day,        // thursday 3 may
  weekday,               // monday
};

struct Shape {
  std::string_view pattern;
  Form form;
  bool has_skip;  // the field before the time list is a "/ N" skip interval
};

// Naemon's order matters: an earlier shape wins even when its names then turn out to be wrong.
constexpr std::array<Shape, 13> k_shapes{{
    {"4-2-2 - 4-2-2 / d t", Form::calendar_range, true},
    {"4-2-2 / d t", Form::calendar_single, true},
    {"4-2-2 - 4-2-2 t", Form::calendar_range, false},
    {"4-2-2 t", Form::calendar_single, false},
    {"a d a - a d a / d t", Form::month_week_day_range, true},
    {"a d - a d / d t", Form::name_range, true},
    {"a d - d / d t", Form::name_short_range, true},
    {"a d a - a d a t", Form::month_week_day_range, false},
    {"a d - d t", Form::name_short_range, false},
    {"a d - a d t", Form::name_range, false},
    {"a dgt", Form::name_single, false},
    {"a d a t", Form::month_week_day, false},
    {"a t", Form::weekday, false},
}};

constexpr std::array<std::string_view, 7> k_weekdays{"sunday",   "monday", "tuesday", "wednesday",
                                                     "thursday", "friday", "saturday"};
constexpr std::array<std::string_view, 12> k_months{"january",   "february", "march",    "april",
                                                    "may",       "june",     "july",     "august",
                                                    "september", "october",  "november", "december"};

template <std::size_t N>
std::optional<int> index_of(const std::array<std::string_view, N>& names, std::string_view word) {
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i] == word) return static_cast<int>(i);
  }
  return std::nullopt;
}
std::optional<int> weekday_of(std::string_view word) {
  return index_of(k_weekdays, word);
}
std::optional<int> month_of(std::string_view word) {
  return index_of(k_months, word);
}

// Builds the exception a recognised line stands for, or nothing when its names do not fit the form.
std::optional<DateRange> date_range_for(Form form, const Fields& f, int skip) {
  DateRange r;
  r.skip_interval = skip;
  switch (form) {
    case Form::calendar_range:
    case Form::calendar_single: {
      const int end = form == Form::calendar_range ? 3 : 0;
      r.type = DateRangeType::calendar_date;
      r.syear = f[0].number, r.smon = f[1].number - 1, r.smday = f[2].number;
      r.eyear = f[end].number, r.emon = f[end + 1].number - 1, r.emday = f[end + 2].number;
      return r;
    }
    case Form::month_week_day_range: {
      const auto swday = weekday_of(f[0].text), smon = month_of(f[2].text);
      const auto ewday = weekday_of(f[3].text), emon = month_of(f[5].text);
      if (!swday || !smon || !ewday || !emon) return std::nullopt;
      r.type = DateRangeType::month_week_day;
      r.smon = *smon, r.swday = *swday, r.swday_offset = f[1].number;
      r.emon = *emon, r.ewday = *ewday, r.ewday_offset = f[4].number;
      return r;
    }
    case Form::month_week_day: {
      const auto wday = weekday_of(f[0].text), mon = month_of(f[2].text);
      if (!wday || !mon) return std::nullopt;
      r.type = DateRangeType::month_week_day;
      r.smon = r.emon = *mon;
      r.swday = r.ewday = *wday;
      r.swday_offset = r.ewday_offset = f[1].number;
      return r;
    }
    case Form::name_range:
    case Form::name_short_range:
    case Form::name_single:
      break;
    case Form::weekday:
      return std::nullopt;
  }

  // The three "<name> N [- [<name>] M]" forms: both names must be weekdays, or months, or "day". The short
  // and single forms repeat the start name; the single form repeats the start number too.
  const std::string_view start_name = f[0].text;
  const int start = f[1].number;
  std::string_view end_name = start_name;
  int end = start;
  if (form == Form::name_range) end_name = f[2].text, end = f[3].number;
  if (form == Form::name_short_range) end = f[2].number;

  if (const auto swday = weekday_of(start_name)) {
    const auto ewday = weekday_of(end_name);
    if (!ewday) return std::nullopt;
    r.type = DateRangeType::week_day;
    r.swday = *swday, r.swday_offset = start, r.ewday = *ewday, r.ewday_offset = end;
    return r;
  }
  if (const auto smon = month_of(start_name)) {
    const auto emon = month_of(end_name);
    if (!emon) return std::nullopt;
    r.type = DateRangeType::month_date;
    r.smon = *smon, r.smday = start, r.emon = *emon, r.emday = end;
    return r;
  }
  if (start_name == "day" && end_name == "day") {
    r.type = DateRangeType::month_day;
    r.smday = start, r.emday = end;
    return r;
  }
  return std::nullopt;
}

// "H:M" with the leniency of Naemon's atoi()-based reader: empty parts count as 0 and text after a second
// ':' is ignored. Fails without a ':' or past 24:00.
std::optional<std::uint32_t> clock_of(std::string_view text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view minutes = text.substr(colon + 1);
  minutes = minutes.substr(0, minutes.find(':'));
  // Naemon computes this in int and then reads it as unsigned long, so an overflow is either rejected
  // as too large or wraps to a small value; the same arithmetic keeps both outcomes.
  const std::int64_t wide = std::int64_t{narrow_like_libc(minutes, /*negative=*/false)} * 60 +
                            std::int64_t{narrow_like_libc(text.substr(0, colon), /*negative=*/false)} * 3600;
  const auto seconds = static_cast<std::int32_t>(static_cast<std::uint32_t>(wide));
  if (seconds < 0 || static_cast<std::uint32_t>(seconds) > timeperiod::k_seconds_per_day) return std::nullopt;
  return static_cast<std::uint32_t>(seconds);
}

// "START-END"; text after a second '-' is ignored, as in Naemon.
std::optional<TimeRange> time_range_of(std::string_view text) {
  const std::size_t dash = text.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  std::string_view end_text = text.substr(dash + 1);
  end_text = end_text.substr(0, end_text.find('-'));
  const auto start = clock_of(text.substr(0, dash));
  const auto end = clock_of(end_text);
  if (!start || !end) return std::nullopt;
  return TimeRange{*start, *end};
}

// Every ',' and every ' ' ends a range, so "09:00-12:00, 13:00-17:00" holds an empty range between the two
// and is rejected, as Naemon rejects it.
base::Status parse_time_list(std::string_view list, std::vector<TimeRange>& out) {
  std::size_t from = 0;
  while (true) {
    const std::size_t cut = list.find_first_of(", ", from);
    const std::string_view piece = list.substr(from, cut == std::string_view::npos ? cut : cut - from);
    const auto range = time_range_of(piece);
    if (!range) {
      return base::Error{piece.empty() ? "empty time range in '" + std::string(list) + "'"
                                       : "invalid time range '" + std::string(piece) + "'"};
    }
    out.push_back(*range);
    if (cut == std::string_view::npos) return base::Status::ok();
    from = cut + 1;
  }
}

bool is_known_name(std::string_view word) {
  return weekday_of(word) || month_of(word) || word == "day";
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_c_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_c_space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

base::Status parse_timeperiod_line(std::string_view line, timeperiod::Rules& rules) {
  // Naemon splits the attribute name at the first space or tab and trims the value before rejoining them
  // with one space; rebuilding the same text keeps odd whitespace behaving as it does there.
  const std::size_t split = line.find_first_of(" \t");
  const std::string_view name = line.substr(0, split);
  std::string input(name);
  input += ' ';
  if (split != std::string_view::npos) input += trim(line.substr(split + 1));

  auto fail = [&] {
    const bool looks_like_date =
        !name.empty() && (is_digit(name.front()) || name.front() == '-' || name.front() == '+');
    return base::Status(base::Error{(looks_like_date || is_known_name(name))
                                        ? "malformed timeperiod directive '" + std::string(trim(input)) + "'"
                                        : "unknown timeperiod directive '" + std::string(name) + "'"});
  };

  Fields fields{};
  const Shape* shape = nullptr;
  for (const Shape& candidate : k_shapes) {
    fields = Fields{};
    const std::size_t want = fields_in(candidate.pattern);
    if (scan(input, candidate.pattern, fields) == want) {
      shape = &candidate;
      break;
    }
  }
  if (shape == nullptr) return fail();

  const std::size_t count = fields_in(shape->pattern);
  const std::string_view times = fields[count - 1].text;
  const int skip = shape->has_skip ? fields[count - 2].number : 0;

  if (shape->form == Form::weekday) {
    const auto day = weekday_of(fields[0].text);
    if (!day) return fail();
    std::vector<TimeRange> ranges;
    if (base::Status s = parse_time_list(times, ranges); !s) return s;
    rules.set_weekday(*day, std::move(ranges));
    return base::Status::ok();
  }

  auto range = date_range_for(shape->form, fields, skip);
  if (!range) return fail();
  if (base::Status s = parse_time_list(times, range->ranges); !s) return s;
  // Naemon puts each range at the head of the exception's list.
  std::reverse(range->ranges.begin(), range->ranges.end());
  rules.add_exception(std::move(*range));
  return base::Status::ok();
}

}  // namespace vedette::config
