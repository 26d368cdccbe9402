// The memory Livestatus' answers and requests hold, shared by every connection and query thread: a query
// makes its answer whole in memory only while the budget has room for it, and in pieces beyond
// (server_queries.cpp); what must be held anyway (a request, a piece) is counted past the limit, and the
// I/O thread sheds connections when that goes too far (server_io.cpp). Any thread. A Share is one holder's
// part, given back when the Share is destroyed.
//
//   MemoryBudget budget(64 << 20);
//   MemoryBudget::Share share(budget);
//   if (!share.try_resize(2 * out.capacity())) { /* no room: answer in pieces */ }
//   share.resize(request.capacity());  // what must be held anyway, even past the limit
#pragma once

#include "base/check.hpp"

#include <atomic>
#include <cstddef>
#include <utility>

namespace vedette::livestatus {

class MemoryBudget {
 public:
  explicit MemoryBudget(std::size_t limit) : limit_(limit) {}
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  [[nodiscard]] std::size_t limit() const { return limit_; }
  [[nodiscard]] std::size_t used() const { return used_.load(std::memory_order_relaxed); }

  class Share {
   public:
    Share() = default;  // of no budget: it holds nothing until one is moved in
    explicit Share(MemoryBudget& budget) : budget_(&budget) {}
    Share(Share&& other) noexcept : budget_(other.budget_), bytes_(std::exchange(other.bytes_, 0)) {}
    Share& operator=(Share&& other) noexcept {
      if (this != &other) {
        resize(0);
        budget_ = other.budget_;
        bytes_ = std::exchange(other.bytes_, 0);
      }
      return *this;
    }
    ~Share() { resize(0); }

    [[nodiscard]] std::size_t bytes() const { return bytes_; }

    // To `bytes` when the budget has room for the growth (a share may always shrink); false leaves it as
    // it was.
    [[nodiscard]] bool try_resize(std::size_t bytes) {
      if (bytes <= bytes_) {
        resize(bytes);
        return true;
      }
      VEDETTE_CHECK(budget_ != nullptr, "a share of no budget cannot grow");
      const std::size_t more = bytes - bytes_;
      std::size_t used = budget_->used_.load(std::memory_order_relaxed);
      do {
        if (used + more > budget_->limit_) return false;
      } while (!budget_->used_.compare_exchange_weak(used, used + more, std::memory_order_relaxed));
      bytes_ = bytes;
      return true;
    }
    // To `bytes` even past the limit: what is held anyway (a request being read, an answer's first piece).
    void resize(std::size_t bytes) {
      if (bytes == bytes_) return;
      VEDETTE_CHECK(budget_ != nullptr, "a share of no budget cannot grow");
      if (bytes > bytes_) {
        budget_->used_.fetch_add(bytes - bytes_, std::memory_order_relaxed);
      } else {
        budget_->used_.fetch_sub(bytes_ - bytes, std::memory_order_relaxed);
      }
      bytes_ = bytes;
    }

   private:
    MemoryBudget* budget_ = nullptr;
    std::size_t bytes_ = 0;
  };

 private:
  const std::size_t limit_;
  std::atomic<std::size_t> used_{0};
};

}  // namespace vedette::livestatus
