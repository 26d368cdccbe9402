// retention.dat read into the page cache on a thread of its own while the configuration loads, so that
// reading it back at start-up finds it in memory. The writer goes around the page cache (O_DIRECT,
// files/atomic_file.hpp) and a machine that has just booted has nothing cached: at a million services the
// file is 1.2 GB, and reading it from the disk once the model was built cost the start-up ~3 s.
//
// Main thread, in `vedette main.cfg` between the main config and the object files:
//
//   retention::Prefetch prefetch(main.state_retention_file);  // returns at once
//   ... load the objects, start the core: retention::load() maps the file ...
//
// Nothing is read into the process: the kernel is asked to read the file ahead (posix_fadvise WILLNEED),
// a slice at a time, which returns once the reads are queued; the destructor waits for that. A missing or
// unreadable file is left to retention::load() to report.
#pragma once

#include <string>
#include <thread>

namespace vedette::retention {

class Prefetch {
 public:
  explicit Prefetch(std::string path);
  ~Prefetch();
  Prefetch(const Prefetch&) = delete;
  Prefetch& operator=(const Prefetch&) = delete;

 private:
  static void run(const std::string& path);

  std::thread thread_;
};

}  // namespace vedette::retention
