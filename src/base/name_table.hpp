// A fixed set of names mapped to values, for the names looked up once per line or per command: Naemon's
// external commands, object types and directives. Filled once, then read-only (from any thread).
//
//   base::NameTable<int> kinds;
//   kinds.add("host", 1);
//   if (const int* kind = kinds.find(word)) use(*kind);
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace vedette::base {

// The length and the first and last 8 bytes, which tell such names apart well enough for one probe in most
// cases, at the cost of two loads (command_path_bench BM_FindCommandSpec: ~20 ns with a binary search, ~4 ns
// with this). Any collision is resolved by comparing whole names.
inline std::uint64_t name_hash(std::string_view name) {
  std::uint64_t head = 0;
  std::uint64_t tail = 0;
  if (name.size() >= sizeof head) {
    std::memcpy(&head, name.data(), sizeof head);
    std::memcpy(&tail, name.data() + name.size() - sizeof tail, sizeof tail);
  } else if (!name.empty()) {  // memcpy from the nullptr of an empty view is undefined, even for 0 bytes
    std::memcpy(&head, name.data(), name.size());
  }
  return ((head * 0x9E3779B97F4A7C15u) ^ (tail * 0xC2B2AE3D27D4EB4Fu) ^ name.size()) * 0xFF51AFD7ED558CCDu;
}

// Open addressing with linear probing, at most half full. std::unordered_map's hash and node walk cost
// several times as much: a fifth of reading object files went to looking up directive names there.
// The names are views: what they point to must outlive the table.
template <typename Value>
class NameTable {
 public:
  // A name added again keeps its first value.
  void add(std::string_view name, Value value) {
    if (2 * (used_ + 1) > slots_.size()) grow();
    place(name, value);
  }

  [[nodiscard]] const Value* find(std::string_view name) const {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = first_slot(name);; i = next(i)) {
      const Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.name == name) return &s.value;
    }
  }

 private:
  struct Slot {
    std::string_view name;
    Value value{};
    bool used = false;
  };

  std::size_t first_slot(std::string_view name) const { return name_hash(name) >> shift_; }
  std::size_t next(std::size_t i) const { return (i + 1) & (slots_.size() - 1); }

  void place(std::string_view name, Value value) {
    std::size_t i = first_slot(name);
    for (; slots_[i].used; i = next(i))
      if (slots_[i].name == name) return;
    slots_[i] = {name, value, true};
    ++used_;
  }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 16 : 2 * old.size(), Slot{});
    shift_ = 64 - static_cast<unsigned>(__builtin_ctzll(slots_.size()));  // the hash's top bits pick the slot
    used_ = 0;
    for (const Slot& s : old)
      if (s.used) place(s.name, s.value);
  }

  std::vector<Slot> slots_;  // a power of two in size
  unsigned shift_ = 64;
  std::size_t used_ = 0;
};

}  // namespace vedette::base
