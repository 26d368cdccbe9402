// Interned strings: each distinct text is stored once and handed out as a stable std::string_view.
// Single-threaded while building; read-only (any thread) once the model is published.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace vedette::model {

class StringPool {
 public:
  StringPool() = default;
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;
  StringPool(StringPool&&) = default;
  StringPool& operator=(StringPool&&) = default;

  // Returns the pooled copy of `text`; views stay valid for the pool's lifetime.
  std::string_view intern(std::string_view text);

  [[nodiscard]] std::size_t size() const { return used_; }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }

 private:
  std::string_view store(std::string_view text);
  void grow();

  // Text lives in fixed blocks so views never move; a block is 64 KiB unless one string is larger.
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::size_t block_used_ = 0;
  std::size_t block_size_ = 0;
  std::size_t bytes_ = 0;
  // Open addressing, at most half full, the hash kept in the slot: a node-based set cost three cache misses
  // a lookup, and interning was a quarter of building 60k hosts (perf, 600k services).
  struct Slot {
    const char* data = nullptr;  // null: free
    std::uint32_t size = 0;
    std::uint32_t hash = 0;
  };
  std::vector<Slot> slots_;  // a power of two in size
  std::size_t used_ = 0;
};

}  // namespace vedette::model
