#include "stats/status_summary.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace vedette::stats {
namespace {

// naemonstats reads with fgets into a 1024-byte buffer less one: a longer line arrives in pieces of
// 1022 bytes, each taken as a line of its own. Keeping that makes a long plugin output count the same.
constexpr int k_line_buffer = 1023;

constexpr int k_check_type_active = 0;

enum class Block { none, info, program, host, service };

// The values of the hoststatus or servicestatus block being read. They are cleared when a block closes,
// and then has_been_checked starts false; before the first block closes it starts true, as in
// naemonstats (only a file whose first block is a host or service sees the difference).
struct Pending {
  double execution_time = 0.0;
  double latency = 0.0;
  int check_type = k_check_type_active;
  int state = 0;
  double state_change = 0.0;
  bool flapping = false;
  int downtime_depth = 0;
  std::int64_t last_check = 0;
  bool has_been_checked = true;
};

// atoi as glibc defines it, without atoi's undefined overflow.
int to_int(const char* text) {
  return static_cast<int>(std::strtol(text, nullptr, 10));
}

std::int64_t to_time(const char* text) {
  return static_cast<std::int64_t>(std::strtoul(text, nullptr, 10));
}

bool is_blank(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// Trims blanks at both ends in place; the returned pointer is NUL-terminated.
char* strip(char* line) {
  std::size_t length = std::strlen(line);
  while (length > 0 && is_blank(line[length - 1])) line[--length] = '\0';
  while (is_blank(*line)) ++line;
  return line;
}

void add_recent(RecentCounts& counts, std::int64_t now, std::int64_t last_check) {
  // Unsigned, as in naemonstats: a last_check in the future is never recent.
  const std::uint64_t age = static_cast<std::uint64_t>(now) - static_cast<std::uint64_t>(last_check);
  if (age <= 3600) ++counts[3];
  if (age <= 900) ++counts[2];
  if (age <= 300) ++counts[1];
  if (age <= 60) ++counts[0];
}

void close_checkable(CheckableTotals& t, const Pending& p, std::int64_t now, int state_count) {
  t.state_change.add(p.state_change, t.entries);
  if (p.check_type == k_check_type_active) {
    ++t.active;
    t.active_latency.add(p.latency, t.active);
    t.active_execution_time.add(p.execution_time, t.active);
    t.active_state_change.add(p.state_change, t.active);
    add_recent(t.active_checked, now, p.last_check);
  } else {
    ++t.passive;
    t.passive_latency.add(p.latency, t.passive);
    t.passive_state_change.add(p.state_change, t.passive);
    add_recent(t.passive_checked, now, p.last_check);
  }
  if (p.state >= 0 && p.state < state_count) ++t.by_state[static_cast<std::size_t>(p.state)];
  if (p.flapping) ++t.flapping;
  if (p.downtime_depth > 0) ++t.in_downtime;
  if (p.has_been_checked) ++t.checked;
  ++t.scheduled;  // naemonstats counts every entry as scheduled
}

// "n1,n5,n15": up to three numbers; empty fields are skipped and missing ones keep their value.
void read_triple(char* value, std::array<int, 3>& out) {
  char* save = nullptr;
  char* token = strtok_r(value, ",", &save);
  for (std::size_t i = 0; i < out.size() && token != nullptr; ++i) {
    out[i] = to_int(token);
    token = strtok_r(nullptr, ",", &save);
  }
}

constexpr std::array<std::string_view, static_cast<std::size_t>(files::CheckStat::count)> k_program_keys{
    "active_scheduled_host_check_stats",
    "active_ondemand_host_check_stats",
    "passive_host_check_stats",
    "active_scheduled_service_check_stats",
    "active_ondemand_service_check_stats",
    "passive_service_check_stats",
    "cached_host_check_stats",
    "cached_service_check_stats",
    "external_command_stats",
    "parallel_host_check_stats",
    "serial_host_check_stats",
};

void read_checkable_value(Pending& p, std::string_view key, const char* value) {
  if (key == "check_execution_time")
    p.execution_time = std::strtod(value, nullptr);
  else if (key == "check_latency")
    p.latency = std::strtod(value, nullptr);
  else if (key == "percent_state_change")
    p.state_change = std::strtod(value, nullptr);
  else if (key == "check_type")
    p.check_type = to_int(value);
  else if (key == "current_state")
    p.state = to_int(value);
  else if (key == "is_flapping")
    p.flapping = to_int(value) > 0;
  else if (key == "scheduled_downtime_depth")
    p.downtime_depth = to_int(value);
  else if (key == "last_check")
    p.last_check = to_time(value);
  else if (key == "has_been_checked")
    p.has_been_checked = to_int(value) > 0;
}

void read_program_value(StatusSummary& s, std::string_view key, char* value) {
  if (key == "program_start") {
    s.program_start = to_time(value);
  } else if (key == "nagios_pid") {
    s.pid = static_cast<int>(std::strtoul(value, nullptr, 10));
  } else {
    for (std::size_t i = 0; i < k_program_keys.size(); ++i) {
      if (key == k_program_keys[i]) {
        read_triple(value, s.program[i]);
        return;
      }
    }
  }
}

int sum(int a, int b) {
  return static_cast<int>(static_cast<unsigned>(a) + static_cast<unsigned>(b));
}

class Reader {
 public:
  Reader(StatusSummary& summary, std::int64_t now) : s_(summary), now_(now) {}

  void take(char* raw) {
    if (raw[0] == '#' || raw[0] == '\0') return;
    char* line = strip(raw);
    const std::string_view text(line);
    if (text == "servicestatus {") {
      block_ = Block::service;
      ++s_.services.entries;
    } else if (text == "hoststatus {") {
      block_ = Block::host;
      ++s_.hosts.entries;
    } else if (text == "info {") {
      block_ = Block::info;
    } else if (text == "programstatus {") {
      block_ = Block::program;
    } else if (text == "}") {
      close_block();
    } else if (block_ != Block::none) {
      read_value(line);
    }
  }

 private:
  void close_block() {
    switch (block_) {
      case Block::program:
        for (std::size_t i = 0; i < 3; ++i) {
          s_.active_host_checks[i] = sum(s_.stat(files::CheckStat::active_scheduled_host)[i],
                                         s_.stat(files::CheckStat::active_ondemand_host)[i]);
          s_.active_service_checks[i] = sum(s_.stat(files::CheckStat::active_scheduled_service)[i],
                                            s_.stat(files::CheckStat::active_ondemand_service)[i]);
        }
        break;
      case Block::host:
        close_checkable(s_.hosts, pending_, now_, 3);
        break;
      case Block::service:
        close_checkable(s_.services, pending_, now_, 4);
        break;
      case Block::info:
      case Block::none:
        break;
    }
    block_ = Block::none;
    pending_ = Pending{};
    pending_.has_been_checked = false;
  }

  // "key=value": leading '=' are skipped, the key ends at the next '=', an empty value is ignored.
  void read_value(char* line) {
    while (*line == '=') ++line;
    char* equals = std::strchr(line, '=');
    if (equals == nullptr || equals[1] == '\0') return;
    *equals = '\0';
    const std::string_view key(line);
    char* value = equals + 1;
    switch (block_) {
      case Block::info:
        if (key == "created")
          s_.created = to_time(value);
        else if (key == "version")
          s_.version = value;
        break;
      case Block::program:
        read_program_value(s_, key, value);
        break;
      case Block::host:
      case Block::service:
        read_checkable_value(pending_, key, value);
        break;
      case Block::none:
        break;
    }
  }

  StatusSummary& s_;
  std::int64_t now_;
  Block block_ = Block::none;
  Pending pending_;
};

}  // namespace

void Spread::add(double value, int count) {
  avg = ((avg * (static_cast<double>(count) - 1.0)) + value) / static_cast<double>(count);
  if (!seen || min > value) min = value;
  if (!seen || max < value) max = value;
  seen = true;
}

SummaryResult read_status_summary(const std::string& path, std::int64_t now) {
  SummaryResult result;
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "r"), &std::fclose);
  if (!file) {
    result.error = errno;
    return result;
  }
  Reader reader(result.summary, now);
  char line[k_line_buffer + 1] = {};
  while (std::fgets(line, k_line_buffer, file.get()) != nullptr) reader.take(line);
  return result;
}

}  // namespace vedette::stats
