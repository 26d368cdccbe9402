// How names and values are written for each backend so that no character of a host name, service
// description or perfdata label can break the line or split a path: Graphite's as Icinga 2's GraphiteWriter
// escapes them, InfluxDB's as its line protocol requires. Pure; any thread. Each appends to `out`.
#pragma once

#include <string>
#include <string_view>

namespace vedette::tsdb {

// A macro value inside a Graphite path (host name, service description): ' ', '.', '\\' and '/' become
// '_' (Icinga 2's EscapeMetric), so the value stays one path component; control bytes become '_' too.
void append_graphite_component(std::string_view value, std::string& out);

// A perfdata label: ' ', '\\' and '/' become '_' and "::" becomes '.' (Icinga 2's EscapeMetricLabel: a
// label may add path levels, e.g. "disk::/var" gives "disk._var"); control bytes become '_'.
void append_graphite_label(std::string_view label, std::string& out);

// The InfluxDB line protocol's escapes: a measurement escapes ',' and ' '; a tag key, tag value or field
// key also '='; a string field value is quoted with '"' and '\\' escaped. Newlines, which end a line
// whatever is escaped, become ' ' (escaped as needed).
void append_influx_measurement(std::string_view name, std::string& out);
void append_influx_key(std::string_view key, std::string& out);
void append_influx_string(std::string_view value, std::string& out);

// A number as both backends read it: the shortest text that reads back as the same double.
void append_number(double value, std::string& out);

}  // namespace vedette::tsdb
