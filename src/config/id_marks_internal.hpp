// A set of dense ids that empties in O(1), shared by config/model_builder*.cpp and config/naemon_order.cpp.
// Loader thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace vedette::config::internal {

// Each start() bumps the generation. Allocating and clearing a per-host array for every service definition
// cost 1 GB of memset at 100k services; a hash set per list expansion allocates for every object.
class IdMarks {
 public:
  void start(std::size_t count) {
    if (stamps_.size() < count) stamps_.resize(count, 0);
    ++generation_;
  }
  [[nodiscard]] bool test(std::uint32_t i) const { return stamps_[i] == generation_; }
  void set(std::uint32_t i) { stamps_[i] = generation_; }
  // Sets i; false when it was set already.
  bool insert(std::uint32_t i) {
    if (test(i)) return false;
    set(i);
    return true;
  }

 private:
  std::vector<std::uint32_t> stamps_;
  std::uint32_t generation_ = 0;
};

}  // namespace vedette::config::internal
