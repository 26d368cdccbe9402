// A set of bytes, built at compile time and tested in one load, for the checks that run on every macro
// value of every check: against a switch per byte, a table halves value_needs_resplit's instructions on
// check_ping's values (239 to 111 a call, callgrind on bench/engine/macros_bench). Any thread.
//
//   constexpr ByteSet k_quotes{"'\""};
//   if (k_quotes.any_in(value)) …
#pragma once

#include <array>
#include <string_view>

namespace vedette::config {

class ByteSet {
 public:
  constexpr ByteSet() = default;
  constexpr explicit ByteSet(std::string_view bytes) { add(bytes); }

  constexpr ByteSet& add(std::string_view bytes) {
    for (char c : bytes) in_[static_cast<unsigned char>(c)] = true;
    return *this;
  }
  constexpr ByteSet& add_range(unsigned char first, unsigned char last) {
    for (unsigned c = first; c <= last; ++c) in_[c] = true;
    return *this;
  }
  // Every byte but those in this set.
  [[nodiscard]] constexpr ByteSet complement() const {
    ByteSet out;
    for (std::size_t c = 0; c < in_.size(); ++c) out.in_[c] = !in_[c];
    return out;
  }

  [[nodiscard]] constexpr bool contains(char c) const { return in_[static_cast<unsigned char>(c)]; }
  [[nodiscard]] constexpr bool any_in(std::string_view value) const {
    for (char c : value)
      if (contains(c)) return true;
    return false;
  }
  [[nodiscard]] constexpr bool all_in(std::string_view value) const {
    for (char c : value)
      if (!contains(c)) return false;
    return true;
  }

 private:
  std::array<bool, 256> in_{};
};

}  // namespace vedette::config
