#include "livestatus/core_channel.hpp"

#include "base/check.hpp"

#include <cerrno>
#include <cstdint>
#include <sys/eventfd.h>
#include <unistd.h>
#include <utility>

namespace vedette::livestatus {

CoreChannel::CoreChannel() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  VEDETTE_CHECK_ERRNO(fd_ >= 0, "livestatus: eventfd");
}

CoreChannel::~CoreChannel() {
  close();
  ::close(fd_);
}

// Called with mutex_ held.
void CoreChannel::wake() {
  if (wakeup_pending_) return;
  wakeup_pending_ = true;
  const std::uint64_t one = 1;
  (void)!::write(fd_, &one, sizeof one);
}

std::shared_ptr<const files::StatusSnapshot> CoreChannel::fresh_snapshot(std::uint64_t* generation) {
  std::unique_lock lock(mutex_);
  if (closed_) return nullptr;
  const std::uint64_t wanted = started_ + 1;
  if (requested_ < wanted) {
    requested_ = wanted;
    wake();
  }
  published_.wait(lock, [&] { return closed_ || done_ >= wanted; });
  if (generation != nullptr) *generation = done_;
  return closed_ ? nullptr : latest_;
}

std::shared_ptr<const files::StatusSnapshot> CoreChannel::snapshot_after(std::uint64_t& seen) {
  {
    std::lock_guard lock(mutex_);
    if (closed_) return nullptr;
    if (done_ > seen && latest_ != nullptr) {
      seen = done_;
      return latest_;
    }
  }
  return fresh_snapshot(&seen);
}

std::optional<std::string> CoreChannel::run_command(std::string line) {
  std::unique_lock lock(mutex_);
  if (closed_) return std::nullopt;
  const std::uint64_t ticket = ++next_ticket_;
  commands_.push_back(PendingCommand{std::move(line), ticket});
  wake();
  commands_ran_.wait(lock, [&] { return closed_ || commands_done_ >= ticket; });
  const auto error = command_errors_.find(ticket);
  if (error == command_errors_.end()) return std::nullopt;
  std::string message = std::move(error->second);
  command_errors_.erase(error);
  return message;
}

void CoreChannel::request_log_rotation() {
  std::lock_guard lock(mutex_);
  if (closed_) return;
  rotate_log_ = true;
  wake();
}

void CoreChannel::post_log_line(std::string line) {
  std::lock_guard lock(mutex_);
  if (closed_) return;
  log_lines_.push_back(std::move(line));
  wake();
}

void CoreChannel::clear_wakeup() {
  std::uint64_t count = 0;
  (void)!::read(fd_, &count, sizeof count);
  std::lock_guard lock(mutex_);
  wakeup_pending_ = false;
}

void CoreChannel::run_commands(const std::function<std::optional<std::string>(std::string_view line)>& run) {
  std::vector<PendingCommand> pending;
  {
    std::lock_guard lock(mutex_);
    pending.swap(commands_);
  }
  if (pending.empty()) return;
  std::vector<std::pair<std::uint64_t, std::string>> errors;
  for (const PendingCommand& c : pending)
    if (std::optional<std::string> error = run(c.line)) errors.emplace_back(c.ticket, std::move(*error));
  {
    std::lock_guard lock(mutex_);
    for (auto& [ticket, message] : errors) command_errors_.emplace(ticket, std::move(message));
    commands_done_ = pending.back().ticket;
  }
  commands_ran_.notify_all();
}

bool CoreChannel::take_log_rotation() {
  std::lock_guard lock(mutex_);
  return std::exchange(rotate_log_, false);
}

std::vector<std::string> CoreChannel::take_log_lines() {
  std::lock_guard lock(mutex_);
  return std::exchange(log_lines_, {});
}

bool CoreChannel::snapshot_wanted() {
  std::lock_guard lock(mutex_);
  if (requested_ <= started_) return false;
  started_ = requested_;
  return true;
}

void CoreChannel::publish(std::shared_ptr<const files::StatusSnapshot> snapshot) {
  {
    std::lock_guard lock(mutex_);
    latest_ = std::move(snapshot);
    done_ = started_;
  }
  published_.notify_all();
}

void CoreChannel::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    latest_.reset();
  }
  published_.notify_all();
  commands_ran_.notify_all();
}

}  // namespace vedette::livestatus
