// Counts heap allocations by replacing the global operator new: include it in exactly one file of a
// benchmark program (each bench/*_bench.cpp is a program of its own), then read g_allocations around the
// timed loop. Any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

inline std::atomic<std::uint64_t> g_allocations{0};

// GCC sees free() on memory from operator new once these replacements are inlined into callers; they are
// a matched pair (malloc/free underneath), so the warning is a false positive here.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
