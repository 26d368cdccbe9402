// A file replaced all at once, as status.dat, retention.dat and objects.cache are: the new text goes into a
// temp file in the target's directory, which is fsynced, then renamed over the target, and the directory is
// fsynced. After a crash at any moment readers find the old file or the new one, never a torn one.
//
// The temp file is created unnamed (O_TMPFILE) and gets its name ("<path><suffix>" with six random
// characters) only once its content is complete, just before the rename: a daemon killed while writing
// leaves nothing behind. Naemon's mkstemp() temp files pile up instead, one per crash (a 100 MB copy each at
// 100k services). Where the file system has no O_TMPFILE, the file is created named, as Naemon does.
//
//   AtomicFile file;
//   if (!file.open(path, "XXXXXX", 0664)) { report(file.failure()); return; }
//   for (chunk : text) if (!file.write(chunk)) { report(file.failure()); return; }
//   if (!file.commit(/*fsync=*/true)) { report(file.failure()); return; }   // else discarded when destroyed
//
// With Io::direct the text goes around the page cache (O_DIRECT), in aligned blocks copied through a 4 MiB
// buffer of the file's own. Through the page cache, writing a status.dat of 1M services (1.5 GB) took the
// writer thread more CPU than formatting it (~0.45 s: the copy into the cache, its writeback at fsync,
// freeing the old file's pages at the rename); directly, about half of that (status_bench BM_WriteFile). The
// new file is then not in the page cache: its first reader reads it from the disk. Where the file system has
// no direct I/O (tmpfs before Linux 6.6, NFS, some FUSE), or refuses a write, the file is written through the
// page cache as before.
//
// One thread at a time (the writer thread that owns it).
#pragma once

#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace vedette::files {

class AtomicFile {
 public:
  // What went wrong: the step ("create", "write", "fsync", "close", "rename", "sync directory"), errno, and
  // the temp file's name (its pattern while it has none yet).
  struct Failure {
    std::string_view step;
    int error = 0;
    std::string temp_path;
  };

  AtomicFile() = default;
  ~AtomicFile();  // an open, uncommitted file is discarded
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  enum class Io { buffered, direct };

  // `suffix` ends in "XXXXXX" (mkstemp's pattern). The file gets `mode` exactly, whatever the umask.
  [[nodiscard]] bool open(std::string path, std::string_view suffix, mode_t mode, Io io = Io::buffered);
  [[nodiscard]] bool write(std::string_view data);
  // fsync (when asked), name, rename over the target, fsync the directory (when asked). On a failure
  // before the rename the target is untouched and the temp file removed; a failure of the directory sync
  // leaves the new file in place (only its durability across a crash is in doubt).
  [[nodiscard]] bool commit(bool fsync);

  [[nodiscard]] const Failure& failure() const { return failure_; }

 private:
  bool fail(std::string_view step, int error);
  void discard();
  void start_direct();
  bool stop_direct();
  bool write_block(std::string_view block);

  struct Free {
    void operator()(char* p) const { std::free(p); }
  };

  std::string path_;
  std::string temp_;  // the temp file's name once it has one
  std::string suffix_;
  int fd_ = -1;
  Failure failure_;
  // Io::direct while the file takes it (align_ 0 otherwise): the block alignment, and the text not written
  // yet (less than k_direct_chunk).
  std::size_t align_ = 0;
  std::unique_ptr<char, Free> staged_;
  std::size_t staged_size_ = 0;
};

}  // namespace vedette::files
