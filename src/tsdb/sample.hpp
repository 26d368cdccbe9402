// One check result as the perfdata writers take it: what the core knows after applying the result, with
// the writer's naming template already expanded. Views: a Sample never owns its texts (the core's fill it
// from its own buffers; the writer's point into its queue). Any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace vedette::tsdb {

struct Sample {
  std::string_view name{};     // the expanded template: Graphite's path prefix, InfluxDB's measurement
  std::string_view host;       // host_name
  std::string_view service;    // service_description; empty for a host result
  std::string_view perf_data;  // as the plugin wrote it
  std::int64_t time = 0;       // when the check ended, seconds since the epoch
  double latency = 0;          // seconds
  double execution_time = 0;   // seconds
  std::uint8_t state = 0;      // Naemon's state number (0 OK/UP …)
  bool hard = true;            // state_type
  std::uint16_t current_attempt = 1;
  std::uint16_t max_check_attempts = 1;
  // Icinga 2's metadata: whether what the object depends on is up (a host that is not UNREACHABLE, a
  // service whose host is UP), its scheduled_downtime_depth, and its acknowledgement (0 none, 1 normal,
  // 2 sticky).
  bool reachable = true;
  std::uint16_t downtime_depth = 0;
  std::uint8_t acknowledgement = 0;
};

// The bytes encode_sample() appends for `s`, so that the queue's bound can be checked before copying.
[[nodiscard]] std::size_t encoded_size(const Sample& s);

// Appends `s` to `out`, self-delimiting. `out`'s capacity is kept by its owner, so a steady stream of
// samples allocates nothing.
void encode_sample(const Sample& s, std::string& out);

// Reads the sample at the front of `in` (as encode_sample wrote it) and removes it; its views point into
// `in`'s storage. False if `in` holds no whole sample.
[[nodiscard]] bool decode_sample(std::string_view& in, Sample& out);

}  // namespace vedette::tsdb
