// The command file (`command_file`): a named pipe that local tools write external command lines into, read by
// the core thread. Core thread only (one reader); any number of writer processes.
//
// Writers: a write(2) of at most PIPE_BUF bytes (4096 on Linux) to a pipe is atomic, so concurrent writers
// that each write whole lines in writes of at most PIPE_BUF bytes never interleave. A longer write may be
// split and mixed with other writers' bytes, tearing lines, as with Naemon.
//
//   auto opened = CommandFifo::open(path);
//   if (!opened.fifo) { log(opened.error); … }
//   poller.add(opened.fifo->fd());  // readable → fifo.drain([&](std::string_view line) { … });
#pragma once

#include "base/expected.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <type_traits>

namespace vedette::commands {

struct DrainResult {
  std::size_t bytes = 0;  // read from the pipe in this call
  std::size_t lines = 0;  // complete lines handed to the callback
  // Lines dropped for exceeding k_max_line_bytes, counted when their '\n' arrives; the caller logs a warning.
  std::size_t overlong_dropped = 0;
  std::size_t last_overlong_bytes = 0;  // length of the last of those, for the warning
  bool drained = false;  // the pipe is empty (EAGAIN); false when the byte budget ran out first
  int error = 0;         // errno of a failed read(2), 0 if none
};

struct FifoOpenResult;

class CommandFifo {
 public:
  // A line longer than this (without its '\n') is dropped whole. Naemon has no limit; this one bounds memory.
  static constexpr std::size_t k_max_line_bytes = 64 * 1024;
  // The most one drain() reads before returning, so a flood of writers cannot starve the loop; the fd stays
  // readable, so a level-triggered poll brings the core back next iteration.
  static constexpr std::size_t k_default_drain_budget = 4 * 1024 * 1024;

  // As Naemon's open_command_file: uses the FIFO at `path` if there is one (leaving its permissions alone),
  // else creates it with mode 0660 (exactly, whatever the umask); refuses any other kind of file. Opened
  // O_RDWR|O_NONBLOCK|O_CLOEXEC: holding a write end ourselves means reads never see EOF when the last
  // writer closes, and opening for write never blocks a submitter while we run.
  [[nodiscard]] static FifoOpenResult open(std::string path);
  // An error when a FIFO at `path` is being read by another process: another Vedette (or Naemon) on the
  // same command_file, which a second instance must not take over. Nothing is written to the pipe.
  [[nodiscard]] static base::Status check_unread(const std::string& path);

  CommandFifo(CommandFifo&& other) noexcept;
  CommandFifo& operator=(CommandFifo&& other) noexcept;
  CommandFifo(const CommandFifo&) = delete;
  CommandFifo& operator=(const CommandFifo&) = delete;
  ~CommandFifo();  // closes; does not unlink (Naemon leaves the FIFO in place too)

  [[nodiscard]] int fd() const { return fd_; }
  [[nodiscard]] const std::string& path() const { return path_; }

  // Reads what is available (64 KiB per read(2)) up to `budget` bytes and calls on_line(std::string_view)
  // for each complete line, without its '\n'; the view is valid only during the call. A trailing partial
  // line is kept for the next call. Empty lines are passed on (Naemon warns about them too).
  template <typename OnLine>
  DrainResult drain(OnLine&& on_line, std::size_t budget = k_default_drain_budget) {
    return drain_impl(
        [](void* context, std::string_view line) {
          (*static_cast<std::remove_reference_t<OnLine>*>(context))(line);
        },
        const_cast<void*>(static_cast<const void*>(std::addressof(on_line))), budget);
  }

  // Closes the pipe and unlinks its path, but only if the path still names this FIFO (a newer instance may
  // have replaced it). Returns false if it was not ours or unlink(2) failed. Call at shutdown.
  bool close_and_unlink();

 private:
  using LineSink = void (*)(void* context, std::string_view line);
  CommandFifo(int fd, std::string path, dev_t device, ino_t inode);
  DrainResult drain_impl(LineSink sink, void* context, std::size_t budget);
  void close_fd();

  int fd_ = -1;
  std::string path_;
  dev_t device_ = 0;  // identity of our FIFO, for close_and_unlink
  ino_t inode_ = 0;
  std::unique_ptr<char[]> buffer_;  // k_buffer_bytes: a pending partial line, then room for a full read
  std::size_t pending_ = 0;         // bytes of the partial line at the front of buffer_
  bool discarding_ = false;         // inside an overlong line: drop bytes up to its '\n'
  std::size_t discarded_ = 0;       // bytes of that line so far
};

struct FifoOpenResult {
  std::optional<CommandFifo> fifo;
  std::string error;  // why not, when !fifo: "command file '<path>' …"
};

}  // namespace vedette::commands
