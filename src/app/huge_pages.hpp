// Lets glibc's malloc back the heap with transparent huge pages. Main thread, first thing in main().
#pragma once

namespace vedette::app {

// Loading 100k services touches ~150 MB in small allocations; with 4 KiB pages that is ~37k page faults,
// and on virtual machines a fault costs microseconds: `vedette -v` at 100k services took 1.1 s, with huge
// pages 0.58 s (perf stat, bench/config/load_bench.py). glibc reads its tunables only when a process
// starts, so when the kernel offers huge pages on request (THP "madvise") this re-executes the binary once
// with glibc.malloc.hugetlb=1 set, then removes the setting again so plugins never inherit it.
// Returns normally when nothing needs doing or the re-exec is not possible.
void use_huge_pages_for_malloc(char** argv);

}  // namespace vedette::app
