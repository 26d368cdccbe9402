// The heap's new pages faulted in by a thread on the other core while the configuration loads. Main thread,
// around config::load_configuration().
//
// Loading a million services grows the heap by ~1.1 GB, and the kernel zeroes each new page when it is
// first touched: on these virtual machines that zeroing was half of `vedette -v` (perf: clear_page_erms
// 47 %), more when the hypervisor must back the memory afresh. While a HeapPrefault lives, malloc takes
// everything from the heap (no mmap of large blocks, which the thread could not see) and grows it 2 MB
// ahead of need, and the thread faults in each stretch the heap grew by (MADV_POPULATE_WRITE, which maps
// zeroed pages and writes nothing), so the loader finds its memory ready. The destructor stops the thread
// and leaves malloc with fixed thresholds of the size its adaptive ones reach in a long-running daemon.
//
//   { app::HeapPrefault prefault;  cfg = config::load_configuration(...); }
//
// Without MADV_POPULATE_WRITE (Linux before 5.14) the thread stops at once and nothing else changes.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

namespace vedette::app {

class HeapPrefault {
 public:
  HeapPrefault();
  ~HeapPrefault();
  HeapPrefault(const HeapPrefault&) = delete;
  HeapPrefault& operator=(const HeapPrefault&) = delete;

 private:
  // Faults in what the heap grows by beyond `from`, its end when the HeapPrefault was made.
  void run(std::uintptr_t from);

  std::atomic<bool> stop_{false};
  std::thread thread_;  // last: started once stop_ is constructed
};

}  // namespace vedette::app
