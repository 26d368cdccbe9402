// Naemon's problem and notification ids: random (version 4) UUIDs, written as their 36-character text in
// status.dat, retention.dat and the $…PROBLEMID$/$…NOTIFICATIONID$ macros. Kept as two numbers so that the
// hot state and its snapshots hold no strings for them. An id read from an older file that is a plain
// number (Nagios counted them) keeps its number: hi = 0 never happens for a version 4 UUID.
// Any thread; UuidGenerator belongs to one thread (the core's).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vedette::state {

struct Uuid {
  std::uint64_t hi = 0;
  std::uint64_t lo = 0;  // hi == 0: the plain number lo, or no id at all when lo is 0 too

  [[nodiscard]] bool is_set() const { return hi != 0 || lo != 0; }
  friend bool operator==(const Uuid&, const Uuid&) = default;
};

// "1b4e28ba-2fa1-4d2e-883f-0016d3cca427", the number for a numeric id, "" for none. Appends to `out`.
void append_uuid(Uuid id, std::string& out);
[[nodiscard]] std::string to_string(Uuid id);
// A file's value: a UUID in any case, or a decimal number; empty is no id; anything else is not an id.
[[nodiscard]] std::optional<Uuid> parse_uuid(std::string_view text);

// Version 4 UUIDs from a xoshiro256** stream seeded from the kernel's random source: fast enough to make
// one per state change of 100k objects, and unique in practice as GLib's g_uuid_string_random() is.
class UuidGenerator {
 public:
  UuidGenerator();
  [[nodiscard]] Uuid next();

 private:
  std::uint64_t s_[4];
  [[nodiscard]] std::uint64_t next_word();
};

}  // namespace vedette::state
