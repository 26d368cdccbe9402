// Interned strings: each distinct text is stored once and handed out as a stable std::string_view.
// Single-threaded while building; read-only (any thread) once the model is published.
#pragma once

#include <memory>
#include <string_view>
#include <unordered_set>
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

  [[nodiscard]] std::size_t size() const { return set_.size(); }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }

 private:
  std::string_view store(std::string_view text);

  // Text lives in fixed blocks so views never move; a block is 64 KiB unless one string is larger.
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::size_t block_used_ = 0;
  std::size_t block_size_ = 0;
  std::size_t bytes_ = 0;
  std::unordered_set<std::string_view> set_;
};

}  // namespace vedette::model
