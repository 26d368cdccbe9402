// A whole file mapped read-only into memory. Loader thread; the text stays valid while the object lives.
// Mapping instead of reading shares the kernel's page-cache pages: nothing is copied or zeroed, which on
// virtual machines is most of the cost of reading 17 MB of object files (bench/config/load_bench.py).
// Like Naemon's mmap_fopen(), a file truncated by someone else during the load is not supported.
// Only regular files are taken: a FIFO would block the open (Naemon hangs there), a device such as
// /dev/zero never ends, and a size limit bounds what one file can cost (docs/configuration.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace vedette::config {

// Which file a path led to, so that a file reached again through another path or a link is recognised.
struct FileId {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  bool operator==(const FileId&) const = default;
};

class MappedFile {
 public:
  // What a configuration file (or a PROCESS_FILE target, or retention.dat) may weigh: 1 GiB, ~60 times the
  // object files of 100,000 services.
  static constexpr std::uint64_t k_max_size = std::uint64_t{1} << 30;

  MappedFile() = default;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  ~MappedFile();

  // Maps `path` if it is a regular file of at most `max_size` bytes. The open never blocks (O_NONBLOCK:
  // a FIFO is refused, not waited on). On failure returns false with errno set and failure() in words.
  [[nodiscard]] bool open(const std::string& path, std::uint64_t max_size = k_max_size);
  [[nodiscard]] std::string_view text() const { return {data_, size_}; }
  [[nodiscard]] FileId id() const { return id_; }
  // Why the last open() failed, for a message: "No such file or directory", "is a FIFO, not a regular
  // file", "is 2147483648 bytes, more than the limit of 1073741824".
  [[nodiscard]] const std::string& failure() const { return failure_; }

 private:
  bool fail(int error, std::string why);

  const char* data_ = nullptr;
  std::size_t size_ = 0;
  FileId id_;
  std::string failure_;
};

// "a FIFO", "a directory", "a character device", ... for a message about what a path is instead of a file.
[[nodiscard]] std::string_view file_type_name(unsigned mode);

}  // namespace vedette::config
