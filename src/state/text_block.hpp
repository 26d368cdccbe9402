// The plugin texts of a status or retention snapshot, one after the other in one block that objects refer
// to by offset. Filled in one pass over the hot state: the block grows (and moves) when a text does not fit,
// which offsets survive. A sizing pass first cost a second walk over all the hot state (25 MB at 100k
// services), as much as the copy itself. Written on the core thread, read-only once the snapshot is built.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>

namespace vedette::state {

class TextBlock {
 public:
  void clear() { size_ = 0; }
  // Where `text` starts in the block.
  std::size_t append(std::string_view text) {
    const std::size_t at = size_;
    if (size_ + text.size() > capacity_) grow(size_ + text.size());
    if (!text.empty()) std::memcpy(data_.get() + size_, text.data(), text.size());
    size_ += text.size();
    return at;
  }
  [[nodiscard]] std::string_view at(std::size_t offset, std::size_t size) const {
    return {data_.get() + offset, size};
  }
  [[nodiscard]] std::size_t size() const { return size_; }

 private:
  void grow(std::size_t needed) {
    const std::size_t capacity = std::max(needed + needed / 2, std::size_t{64} << 10);
    std::unique_ptr<char[]> data(new char[capacity]);
    if (size_ != 0) std::memcpy(data.get(), data_.get(), size_);
    data_ = std::move(data);
    capacity_ = capacity;
  }

  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace vedette::state
