// Appends "key=value" lines to a string, byte for byte as Naemon's fprintf calls write them in status.dat
// and retention.dat (%d, %lu, %f, %.3f, %.2f, %s). Keys include their indentation and '='. Used by the
// writer threads of both files; one thread at a time.
//
//   std::string text;
//   { files::NaemonLines o(text);  o.str("\thost_name=", name);  o.fixed<3>("\tcheck_latency=", 0.25); }
//   // text holds "\thost_name=...\n\tcheck_latency=0.250\n" once `o` is gone
//
// Every line is written through a bare pointer into room reserved for it, and the writers are forced inline
// so that a key is a fixed-size copy and a number a few stores: with std::string::append per piece and fmt
// per number status.dat took 3.5x the CPU (status_bench BM_Format, 1M services: 0.75 s, now 0.21 s). The
// string is grown ahead of the text, so its size() is only right once the lines are gone; text() is what was
// written so far.
#pragma once

#include "state/uuid.hpp"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <span>
#include <string>
#include <string_view>

namespace vedette::files {

class NaemonLines {
 public:
  // Appends after what `out` holds.
  explicit NaemonLines(std::string& out) : s_(out), size_(out.size()) {}
  ~NaemonLines() { s_.resize(size_); }
  NaemonLines(const NaemonLines&) = delete;
  NaemonLines& operator=(const NaemonLines&) = delete;

  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] std::string_view text() const { return {s_.data(), size_}; }
  // Forgets the text (after it was written out); the room stays.
  void clear() { size_ = 0; }

  [[gnu::always_inline]] void raw(std::string_view text) { done(copy(room(text.size()), text)); }
  [[gnu::always_inline]] void str(std::string_view key, std::string_view value) {
    char* p = copy(room(key.size() + 2 * value.size() + 1), key);
    p = escaped(p, value);
    *p++ = '\n';
    done(p);
  }
  [[gnu::always_inline]] void num(std::string_view key, long long value) {
    char* p = signed_decimal(copy(room(key.size() + 21), key), value);
    *p++ = '\n';
    done(p);
  }
  // %lu of an unsigned long.
  [[gnu::always_inline]] void unum(std::string_view key, unsigned long value) {
    char* p = decimal(copy(room(key.size() + 21), key), value);
    *p++ = '\n';
    done(p);
  }
  // A problem or notification id: its text, empty for none.
  void uuid(std::string_view key, state::Uuid id) {
    if (id.hi == 0 && id.lo == 0) {
      raw(key);
      raw("\n");
      return;
    }
    uuid_text_.clear();
    state::append_uuid(id, uuid_text_);
    str(key, uuid_text_);
  }
  // A time_t printed with %lu, as Naemon does.
  [[gnu::always_inline]] void time(std::string_view key, std::int64_t value) {
    unum(key, static_cast<unsigned long>(value));
  }
  [[gnu::always_inline]] void flag(std::string_view key, bool value) {
    char* p = copy(room(key.size() + 2), key);
    *p++ = value ? '1' : '0';
    *p++ = '\n';
    done(p);
  }
  // %f with 6, 3 or 2 decimals.
  template <int Decimals>
  [[gnu::always_inline]] void fixed(std::string_view key, double value) {
    static_assert(Decimals == 6 || Decimals == 3 || Decimals == 2);
    char* p = copy(room(key.size() + 32), key);
    if (char* end = fixed_fast<Decimals>(p, value)) {
      *end++ = '\n';
      done(end);
      return;
    }
    done(p);
    fixed_slow<Decimals>(value);
  }
  // A struct timeval as Naemon's tv_str(): "%lld.%06ld".
  [[gnu::always_inline]] void timeval(std::string_view key, std::int64_t sec, std::int32_t usec) {
    char* p = copy(room(key.size() + 30), key);
    if (sec < 0 || usec < 0 || usec > 999'999) {
      done(p);
      slow_append([&](auto out) { fmt::format_to(out, FMT_COMPILE("{}.{:06}\n"), sec, usec); });
      return;
    }
    p = decimal(p, static_cast<std::uint64_t>(sec));
    *p++ = '.';
    p = zero_padded(p, static_cast<std::uint32_t>(usec), 6);
    *p++ = '\n';
    done(p);
  }
  // Integers separated by commas ("5,0,0", state_history).
  template <typename Int>
  void list(std::string_view key, std::span<const Int> values) {
    char* p = copy(room(key.size() + 22 * values.size() + 1), key);
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (i > 0) *p++ = ',';
      p = signed_decimal(p, static_cast<long long>(values[i]));
    }
    *p++ = '\n';
    done(p);
  }
  // "<indent>_NAME=<modified>;<value>"
  [[gnu::always_inline]] void custom(std::string_view indent, std::string_view name, bool modified,
                                     std::string_view value) {
    char* p = copy(room(indent.size() + name.size() + 2 * value.size() + 5), indent);
    *p++ = '_';
    p = copy(p, name);
    p = copy(p, modified ? std::string_view("=1;") : std::string_view("=0;"));
    p = escaped(p, value);
    *p++ = '\n';
    done(p);
  }

 private:
  // At least `n` bytes writable at the end of the text. The string doubles, so growth is rare; the
  // writers keep theirs between files.
  [[gnu::always_inline]] char* room(std::size_t n) {
    if (s_.size() - size_ < n) [[unlikely]]
      grow(n);
    return s_.data() + size_;
  }
  [[gnu::noinline]] void grow(std::size_t n) {
    s_.resize(std::max({s_.size() * 2, size_ + n, std::size_t{4096}}));
  }
  [[gnu::always_inline]] void done(char* end) { size_ = static_cast<std::size_t>(end - s_.data()); }

  [[gnu::always_inline]] static char* copy(char* p, std::string_view text) {
    if (!text.empty()) std::memcpy(p, text.data(), text.size());  // an empty view's data() may be null
    return p + text.size();
  }

  // `v` in decimal, written from its last digit back, so no digit is copied twice.
  [[gnu::always_inline]] static char* decimal(char* p, std::uint64_t v) {
    char* const end = p + digits(v);
    char* q = end;
    while (v >= 100) {
      q -= 2;
      std::memcpy(q, &k_pairs[(v % 100) * 2], 2);
      v /= 100;
    }
    if (v >= 10) {
      std::memcpy(q - 2, &k_pairs[v * 2], 2);
    } else {
      q[-1] = static_cast<char>('0' + v);
    }
    return end;
  }
  [[gnu::always_inline]] static char* signed_decimal(char* p, long long v) {
    if (v >= 0) return decimal(p, static_cast<std::uint64_t>(v));
    *p++ = '-';
    return decimal(p, 0 - static_cast<std::uint64_t>(v));
  }
  static int digits(std::uint64_t v) {
    int n = 1;
    for (;;) {
      if (v < 10) return n;
      if (v < 100) return n + 1;
      if (v < 1000) return n + 2;
      if (v < 10000) return n + 3;
      v /= 10000;
      n += 4;
    }
  }
  // `v` < 10^width in exactly `width` digits.
  [[gnu::always_inline]] static char* zero_padded(char* p, std::uint32_t v, int width) {
    for (int i = width - 1; i >= 0; --i) {
      p[i] = static_cast<char>('0' + v % 10);
      v /= 10;
    }
    return p + width;
  }

  // %.<Decimals>f of the values that need no float formatter, else null. Whole numbers (intervals, most
  // execution times at 0) are printed as integers. Other values below 2^32 after scaling are scaled and
  // rounded to the nearest integer: the product is off by at most 2^-21, so unless its fraction is within
  // 10^-6 of one half (a tie, or too close to tell), that rounding is printf's. -0.0 prints as "0", as it
  // always has here.
  template <int Decimals>
  [[gnu::always_inline]] static char* fixed_fast(char* p, double value) {
    constexpr std::uint64_t k_scale = Decimals == 6 ? 1'000'000 : Decimals == 3 ? 1'000 : 100;
    if (!(value >= 0 && value < 1e15)) return nullptr;
    if (value == static_cast<double>(static_cast<long long>(value))) {
      p = decimal(p, static_cast<std::uint64_t>(value));
      *p++ = '.';
      std::memset(p, '0', Decimals);
      return p + Decimals;
    }
    const double scaled = value * static_cast<double>(k_scale);
    if (!(scaled < 4294967296.0)) return nullptr;
    auto n = static_cast<std::uint64_t>(scaled);
    const double fraction = scaled - static_cast<double>(n);
    if (fraction > 0.5 - 1e-6 && fraction < 0.5 + 1e-6) return nullptr;
    if (fraction > 0.5) ++n;
    p = decimal(p, n / k_scale);
    *p++ = '.';
    return zero_padded(p, static_cast<std::uint32_t>(n % k_scale), Decimals);
  }
  template <int Decimals>
  void fixed_slow(double value) {
    slow_append([&](auto out) {
      if constexpr (Decimals == 6) {
        fmt::format_to(out, FMT_COMPILE("{:.6f}\n"), value);
      } else if constexpr (Decimals == 3) {
        fmt::format_to(out, FMT_COMPILE("{:.3f}\n"), value);
      } else {
        fmt::format_to(out, FMT_COMPILE("{:.2f}\n"), value);
      }
    });
  }
  // The rare values fmt formats (ties, huge or negative numbers) go through a buffer of their own.
  template <typename Format>
  void slow_append(Format&& format) {
    fmt::memory_buffer text;
    format(std::back_inserter(text));
    raw(std::string_view(text.data(), text.size()));
  }

  // A value ends at its line. Naemon stores long output with newlines escaped as the two bytes "\n" and
  // writes strings as they are; a raw newline that still reached a value here would end it early and turn
  // the rest into a bogus line, so it is escaped the same way (backslashes are left alone, as Naemon
  // leaves them). Needs room for 2 * value.size().
  [[gnu::always_inline]] static char* escaped(char* p, std::string_view value) {
    for (;;) {
      const void* nl = value.empty() ? nullptr : std::memchr(value.data(), '\n', value.size());
      if (nl == nullptr) return copy(p, value);
      const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(nl) - value.data());
      p = copy(p, value.substr(0, at));
      p = copy(p, "\\n");
      value.remove_prefix(at + 1);
    }
  }

  static constexpr char k_pairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";

  std::string& s_;
  std::size_t size_;       // the text's length; s_ is longer, its tail is room
  std::string uuid_text_;  // reused by uuid()
};

}  // namespace vedette::files
