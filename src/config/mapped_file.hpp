// A whole file mapped read-only into memory. Loader thread; the text stays valid while the object lives.
// Mapping instead of reading shares the kernel's page-cache pages: nothing is copied or zeroed, which on
// virtual machines is most of the cost of reading 17 MB of object files (bench/config/load_bench.py).
// Like Naemon's mmap_fopen(), a file truncated by someone else during the load is not supported.
#pragma once

#include <string>
#include <string_view>

namespace vedette::config {

class MappedFile {
 public:
  MappedFile() = default;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  ~MappedFile();

  // Maps `path`; on failure returns false with errno set.
  [[nodiscard]] bool open(const std::string& path);
  [[nodiscard]] std::string_view text() const { return {data_, size_}; }

 private:
  const char* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace vedette::config
