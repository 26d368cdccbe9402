// Vedette's own main-config options for the built-in perfdata writers (docs/perfdata-writers.md):
// graphite_writer=host:port, influxdb_writer=http://host:port and their naming templates, credentials and
// buffer. Parsed with the rest of the main config; a plain value afterwards, for any thread.
#pragma once

#include "config/diagnostics.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vedette::config {

// host:port of a backend; port 0: not configured.
struct WriterEndpoint {
  std::string host;  // a name or an address; IPv6 without the brackets
  std::uint16_t port = 0;
  SourcePos at{};  // where it was set, for the checks that need the other options too

  [[nodiscard]] bool is_set() const { return port != 0; }
};

struct PerfdataWriters {
  // Not an aggregate: g++ 12 -O3 warns (-Wmaybe-uninitialized) about the nested strings of a MainConfig{}
  // temporary otherwise.
  PerfdataWriters() {}

  WriterEndpoint graphite;
  // Icinga 2's GraphiteWriter layout (its host_name_template / service_name_template) under "vedette". In
  // both writers' templates $HOSTCHECKCOMMAND$ and $SERVICECHECKCOMMAND$ are the command's name, without
  // the `!` arguments Naemon's macros carry, as Icinga 2's check_command.
  std::string graphite_host_template = "vedette.$HOSTNAME$.host.$HOSTCHECKCOMMAND$";
  std::string graphite_service_template = "vedette.$HOSTNAME$.services.$SERVICEDESC$.$SERVICECHECKCOMMAND$";

  WriterEndpoint influxdb;
  // v1 (/write): database, optional retention policy and credentials.
  std::string influxdb_database;
  std::string influxdb_retention_policy;
  std::string influxdb_username;
  std::string influxdb_password;
  // v2 (/api/v2/write): organization, bucket and token; influxdb_bucket chooses v2.
  std::string influxdb_org;
  std::string influxdb_bucket;
  std::string influxdb_token;
  // The measurement: the command's name, as Icinga 2's.
  std::string influxdb_host_measurement_template = "$HOSTCHECKCOMMAND$";
  std::string influxdb_service_measurement_template = "$SERVICECHECKCOMMAND$";

  // Both writers. Off unless asked, as Icinga 2's enable_send_thresholds and enable_send_metadata: each
  // sends a series per object more (a whisper file each in Graphite).
  bool send_thresholds = false;
  bool send_metadata = false;
  std::size_t buffer_size = std::size_t{16} << 20;  // bytes per writer
  int flush_interval_ms = 1000;
  int timeout_s = 5;

  [[nodiscard]] bool influxdb_v2() const { return !influxdb_bucket.empty(); }
};

// Applies option `name` if it is one of these: true if it was (then `error` is empty or says what is
// wrong with `value`), false if the name is not a perfdata writer option.
[[nodiscard]] bool apply_perfdata_writer_option(PerfdataWriters& w, std::string_view name,
                                                std::string_view value, SourcePos at, std::string& error);

// The checks that need every option: an InfluxDB writer needs influxdb_database (v1) or influxdb_org and
// influxdb_bucket (v2), not both. Each problem with the position of influxdb_writer=.
[[nodiscard]] std::vector<std::pair<SourcePos, std::string>> check_perfdata_writers(const PerfdataWriters& w);

}  // namespace vedette::config
