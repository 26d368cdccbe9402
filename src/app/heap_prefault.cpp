#include "app/heap_prefault.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace vedette::app {
namespace {

#ifndef MADV_POPULATE_WRITE
constexpr int MADV_POPULATE_WRITE = 23;  // Linux 5.14; older headers lack the name
#endif

// The heap grows this far ahead of need while the thread runs (more only raised the peak RSS), and the
// thread faults in a stretch this long at a time, so the destructor never waits behind a large one.
constexpr int k_top_pad = 2 << 20;
constexpr std::uintptr_t k_slice = 2 << 20;
// malloc's adaptive thresholds settle at these in a daemon that frees large blocks (glibc's maximum mmap
// threshold on 64-bit, trimming at twice it); setting any threshold turns the adaptation off for good.
constexpr int k_mmap_threshold = 32 << 20;
constexpr int k_trim_threshold = 2 * k_mmap_threshold;
constexpr int k_mmap_max = 65536;             // glibc's default
constexpr int k_default_top_pad = 128 << 10;  // likewise

// The heap's end as the kernel has it: the system call, not sbrk(0), whose cached value malloc writes.
std::uintptr_t heap_end() {
  return static_cast<std::uintptr_t>(::syscall(SYS_brk, 0));
}

std::uintptr_t page_down(std::uintptr_t a) {
  static const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  return a & ~(page - 1);
}

}  // namespace

HeapPrefault::HeapPrefault() {
  ::mallopt(M_MMAP_MAX, 0);
  ::mallopt(M_TOP_PAD, k_top_pad);
  ::mallopt(M_TRIM_THRESHOLD, k_trim_threshold);
  thread_ = std::thread([this, from = page_down(heap_end())] { run(from); });
}

HeapPrefault::~HeapPrefault() {
  stop_.store(true, std::memory_order_relaxed);
  thread_.join();
  ::mallopt(M_TOP_PAD, k_default_top_pad);
  ::mallopt(M_MMAP_THRESHOLD, k_mmap_threshold);
  ::mallopt(M_MMAP_MAX, k_mmap_max);
}

void HeapPrefault::run(std::uintptr_t done) {
  while (!stop_.load(std::memory_order_relaxed)) {
    const std::uintptr_t end = page_down(heap_end());
    if (end <= done) {
      done = end;  // trimmed: start again from the new end
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      continue;
    }
    const std::uintptr_t upto = std::min(end, done + k_slice);
    if (::madvise(reinterpret_cast<void*>(done), upto - done, MADV_POPULATE_WRITE) != 0) return;
    done = upto;
  }
}

}  // namespace vedette::app
