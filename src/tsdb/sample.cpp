#include "tsdb/sample.hpp"

#include <cstring>

namespace vedette::tsdb {
namespace {

// Fixed part first, then the four texts back to back.
struct Header {
  std::uint32_t name_size;
  std::uint32_t host_size;
  std::uint32_t service_size;
  std::uint32_t perf_data_size;
  std::int64_t time;
  double latency;
  double execution_time;
  std::uint16_t current_attempt;
  std::uint16_t max_check_attempts;
  std::uint16_t downtime_depth;
  std::uint8_t state;
  std::uint8_t hard;
  std::uint8_t reachable;
  std::uint8_t acknowledgement;
};

}  // namespace

std::size_t encoded_size(const Sample& s) {
  return sizeof(Header) + s.name.size() + s.host.size() + s.service.size() + s.perf_data.size();
}

void encode_sample(const Sample& s, std::string& out) {
  const Header h{static_cast<std::uint32_t>(s.name.size()),
                 static_cast<std::uint32_t>(s.host.size()),
                 static_cast<std::uint32_t>(s.service.size()),
                 static_cast<std::uint32_t>(s.perf_data.size()),
                 s.time,
                 s.latency,
                 s.execution_time,
                 s.current_attempt,
                 s.max_check_attempts,
                 s.downtime_depth,
                 s.state,
                 static_cast<std::uint8_t>(s.hard ? 1 : 0),
                 static_cast<std::uint8_t>(s.reachable ? 1 : 0),
                 s.acknowledgement};
  out.append(reinterpret_cast<const char*>(&h), sizeof h);
  out.append(s.name);
  out.append(s.host);
  out.append(s.service);
  out.append(s.perf_data);
}

bool decode_sample(std::string_view& in, Sample& out) {
  Header h;
  if (in.size() < sizeof h) return false;
  std::memcpy(&h, in.data(), sizeof h);
  const std::size_t texts = std::size_t{h.name_size} + h.host_size + h.service_size + h.perf_data_size;
  if (in.size() - sizeof h < texts) return false;
  const char* p = in.data() + sizeof h;
  auto take = [&p](std::uint32_t n) {
    const std::string_view v(p, n);
    p += n;
    return v;
  };
  out.name = take(h.name_size);
  out.host = take(h.host_size);
  out.service = take(h.service_size);
  out.perf_data = take(h.perf_data_size);
  out.time = h.time;
  out.latency = h.latency;
  out.execution_time = h.execution_time;
  out.current_attempt = h.current_attempt;
  out.max_check_attempts = h.max_check_attempts;
  out.downtime_depth = h.downtime_depth;
  out.state = h.state;
  out.hard = h.hard != 0;
  out.reachable = h.reachable != 0;
  out.acknowledgement = h.acknowledgement;
  in.remove_prefix(sizeof h + texts);
  return true;
}

}  // namespace vedette::tsdb
