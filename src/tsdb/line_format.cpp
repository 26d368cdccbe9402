#include "tsdb/line_format.hpp"

#include "tsdb/metric_names.hpp"
#include "tsdb/perfdata_values.hpp"

#include <fmt/format.h>

#include <iterator>

namespace vedette::tsdb {
namespace {

void graphite_line(const Sample& s, std::string_view group, std::string_view label, std::string_view suffix,
                   double value, std::string& out) {
  out += s.name;
  out += '.';
  out += group;
  out += '.';
  if (!label.empty()) {
    append_graphite_label(label, out);
    out += '.';
  }
  out += suffix;
  out += ' ';
  append_number(value, out);
  fmt::format_to(std::back_inserter(out), " {}\n", s.time);
}

void influx_series(const Sample& s, std::string_view measurement, std::string& out) {
  append_influx_measurement(measurement, out);
  out += ",hostname=";
  append_influx_key(s.host, out);
  if (!s.service.empty()) {
    out += ",service=";
    append_influx_key(s.service, out);
  }
}

void influx_field(std::string_view key, double value, std::string& out) {
  out += ',';
  out += key;
  out += '=';
  append_number(value, out);
}

}  // namespace

void append_graphite_lines(const Sample& s, const LineOptions& options, std::string& out) {
  PerfdataReader reader(s.perf_data);
  for (PerfdataValue v; reader.next(v);) {
    graphite_line(s, "perfdata", v.label, "value", v.value, out);
    if (!options.thresholds) continue;
    if (v.warn) graphite_line(s, "perfdata", v.label, "warn", *v.warn, out);
    if (v.crit) graphite_line(s, "perfdata", v.label, "crit", *v.crit, out);
    if (v.min) graphite_line(s, "perfdata", v.label, "min", *v.min, out);
    if (v.max) graphite_line(s, "perfdata", v.label, "max", *v.max, out);
  }
  if (!options.metadata) return;
  // Icinga 2's metadata, in its order.
  graphite_line(s, "metadata", {}, "state", s.state, out);
  graphite_line(s, "metadata", {}, "current_attempt", s.current_attempt, out);
  graphite_line(s, "metadata", {}, "max_check_attempts", s.max_check_attempts, out);
  graphite_line(s, "metadata", {}, "state_type", s.hard ? 1 : 0, out);
  graphite_line(s, "metadata", {}, "reachable", s.reachable ? 1 : 0, out);
  graphite_line(s, "metadata", {}, "downtime_depth", s.downtime_depth, out);
  graphite_line(s, "metadata", {}, "acknowledgement", s.acknowledgement, out);
  graphite_line(s, "metadata", {}, "latency", s.latency, out);
  graphite_line(s, "metadata", {}, "execution_time", s.execution_time, out);
}

void append_influx_lines(const Sample& s, const LineOptions& options, std::string& out) {
  const std::string_view measurement = s.name;
  if (measurement.empty() || s.host.empty()) return;  // the line protocol has no empty names
  PerfdataReader reader(s.perf_data);
  for (PerfdataValue v; reader.next(v);) {
    influx_series(s, measurement, out);
    out += ",metric=";
    append_influx_key(v.label, out);
    out += " value=";
    append_number(v.value, out);
    if (options.thresholds) {
      if (v.warn) influx_field("warn", *v.warn, out);
      if (v.crit) influx_field("crit", *v.crit, out);
      if (v.min) influx_field("min", *v.min, out);
      if (v.max) influx_field("max", *v.max, out);
    }
    if (!v.unit.empty()) {
      out += ",unit=";
      append_influx_string(v.unit, out);
    }
    fmt::format_to(std::back_inserter(out), " {}\n", s.time);
  }
  if (!options.metadata) return;
  influx_series(s, measurement, out);
  fmt::format_to(std::back_inserter(out),
                 " state={}i,current_attempt={}i,max_check_attempts={}i,state_type={}i,reachable={},"
                 "downtime_depth={}i,acknowledgement={}i",
                 s.state, s.current_attempt, s.max_check_attempts, s.hard ? 1 : 0,
                 s.reachable ? "true" : "false", s.downtime_depth, s.acknowledgement);
  influx_field("latency", s.latency, out);
  influx_field("execution_time", s.execution_time, out);
  fmt::format_to(std::back_inserter(out), " {}\n", s.time);
}

}  // namespace vedette::tsdb
