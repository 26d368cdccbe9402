#include "model/string_pool.hpp"

#include <algorithm>
#include <cstring>
#include <functional>

namespace vedette::model {

namespace {
constexpr std::size_t k_block_size = 64 * 1024;
}

std::string_view StringPool::intern(std::string_view text) {
  if (text.empty()) return {};
  if (2 * (used_ + 1) > slots_.size()) grow();
  const auto hash = static_cast<std::uint32_t>(std::hash<std::string_view>{}(text));
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = hash & mask;
  for (; slots_[i].data != nullptr; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.hash == hash && s.size == text.size() && std::memcmp(s.data, text.data(), text.size()) == 0)
      return {s.data, s.size};
  }
  const std::string_view stored = store(text);
  slots_[i] = {stored.data(), static_cast<std::uint32_t>(stored.size()), hash};
  ++used_;
  return stored;
}

void StringPool::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 1024 : 2 * old.size(), Slot{});
  const std::size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.data == nullptr) continue;
    std::size_t i = s.hash & mask;
    while (slots_[i].data != nullptr) i = (i + 1) & mask;
    slots_[i] = s;
  }
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
