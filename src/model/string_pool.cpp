#include "model/string_pool.hpp"

#include <algorithm>
#include <cstring>

namespace vedette::model {

namespace {
constexpr std::size_t k_block_size = 64 * 1024;
}

std::string_view StringPool::intern(std::string_view text) {
  if (text.empty()) return {};
  if (auto it = set_.find(text); it != set_.end()) return *it;
  std::string_view stored = store(text);
  set_.insert(stored);
  return stored;
}

std::string_view StringPool::store(std::string_view text) {
  if (blocks_.empty() || block_size_ - block_used_ < text.size()) {
    block_size_ = std::max(k_block_size, text.size());
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(block_size_));  // no zeroing: all copied over
    block_used_ = 0;
  }
  char* out = blocks_.back().get() + block_used_;
  std::memcpy(out, text.data(), text.size());
  block_used_ += text.size();
  bytes_ += text.size();
  return {out, text.size()};
}

}  // namespace vedette::model
