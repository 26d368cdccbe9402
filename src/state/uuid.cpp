#include "state/uuid.hpp"

#include <charconv>
#include <chrono>
#include <sys/random.h>

namespace vedette::state {
namespace {

constexpr char k_hex[] = "0123456789abcdef";

void append_hex(std::uint64_t value, int from_nibble, int to_nibble, std::string& out) {
  for (int i = from_nibble; i < to_nibble; ++i) out.push_back(k_hex[(value >> (60 - 4 * i)) & 0xf]);
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::uint64_t rotl(std::uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

}  // namespace

void append_uuid(Uuid id, std::string& out) {
  if (id.hi == 0) {
    if (id.lo != 0) out += std::to_string(id.lo);
    return;
  }
  // 8-4-4-4-12 hex digits.
  append_hex(id.hi, 0, 8, out);
  out.push_back('-');
  append_hex(id.hi, 8, 12, out);
  out.push_back('-');
  append_hex(id.hi, 12, 16, out);
  out.push_back('-');
  append_hex(id.lo, 0, 4, out);
  out.push_back('-');
  append_hex(id.lo, 4, 16, out);
}

std::string to_string(Uuid id) {
  std::string out;
  append_uuid(id, out);
  return out;
}

std::optional<Uuid> parse_uuid(std::string_view text) {
  if (text.empty()) return Uuid{};
  if (text.size() == 36) {
    Uuid id;
    int nibble = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (i == 8 || i == 13 || i == 18 || i == 23) {
        if (text[i] != '-') return std::nullopt;
        continue;
      }
      const int v = hex_value(text[i]);
      if (v < 0) return std::nullopt;
      std::uint64_t& word = nibble < 16 ? id.hi : id.lo;
      word = (word << 4) | static_cast<std::uint64_t>(v);
      ++nibble;
    }
    if (id.hi != 0) return id;
    return std::nullopt;  // not one a generator makes; keeping it would read back as a number
  }
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return Uuid{0, n};
}

UuidGenerator::UuidGenerator() {
  if (::getrandom(s_, sizeof s_, 0) != static_cast<ssize_t>(sizeof s_)) {
    // No kernel randomness (very early boot): the clock still gives distinct runs.
    std::uint64_t x = static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
    for (std::uint64_t& w : s_) {  // splitmix64
      x += 0x9e3779b97f4a7c15ULL;
      std::uint64_t z = x;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      w = z ^ (z >> 31);
    }
  }
  if ((s_[0] | s_[1] | s_[2] | s_[3]) == 0) s_[0] = 1;
}

std::uint64_t UuidGenerator::next_word() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

Uuid UuidGenerator::next() {
  Uuid id{next_word(), next_word()};
  id.hi = (id.hi & ~0xf000ULL) | 0x4000ULL;                         // version 4
  id.lo = (id.lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  return id;
}

}  // namespace vedette::state
