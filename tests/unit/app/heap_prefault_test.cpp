// While a HeapPrefault lives, large blocks come from the heap and the heap's new pages are faulted in by
// its thread, before anyone touches them.
#include "app/heap_prefault.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace vedette::app {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool k_own_malloc = true;  // ASan's allocator ignores mallopt and never grows the heap
#else
constexpr bool k_own_malloc = false;
#endif

constexpr std::size_t k_block = std::size_t{48} << 20;  // above any mmap threshold glibc adapts to

std::uintptr_t heap_end() {
  return static_cast<std::uintptr_t>(::syscall(SYS_brk, 0));
}

bool in_heap(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) < heap_end();
}

// The whole pages inside [from, to) that are resident, and how many there are.
std::pair<std::size_t, std::size_t> resident(std::uintptr_t from, std::uintptr_t to) {
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  from = (from + page - 1) & ~(page - 1);
  to &= ~(page - 1);
  std::vector<unsigned char> in_core((to - from) / page);
  if (::mincore(reinterpret_cast<void*>(from), to - from, in_core.data()) != 0) return {0, in_core.size()};
  std::size_t n = 0;
  for (unsigned char c : in_core) n += c & 1;
  return {n, in_core.size()};
}

TEST(HeapPrefault, FaultsInTheHeapsNewPagesBeforeTheyAreTouched) {
  if (k_own_malloc) GTEST_SKIP() << "not glibc's malloc";
  void* block = nullptr;
  {
    const std::uintptr_t heap_end_before = heap_end();
    const HeapPrefault prefault;
    block = std::malloc(k_block);  // not written: only the thread can make its pages resident
    ASSERT_NE(block, nullptr);
    EXPECT_TRUE(in_heap(block));
    // The part of the block the heap grew for (its start may lie in space the heap had already).
    const std::uintptr_t from = std::max(reinterpret_cast<std::uintptr_t>(block), heap_end_before);
    const std::uintptr_t to = reinterpret_cast<std::uintptr_t>(block) + k_block;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    auto [n, pages] = resident(from, to);
    while (n < pages && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      std::tie(n, pages) = resident(from, to);
    }
    EXPECT_GT(pages, 10000u);
    EXPECT_EQ(n, pages);
  }
  std::free(block);
}

}  // namespace
}  // namespace vedette::app
