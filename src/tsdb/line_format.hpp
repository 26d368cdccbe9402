// The lines one sample becomes, in each backend's text protocol. Pure; any thread (the writers call them
// on their own thread, so the core never parses performance data for them).
//
// Graphite plaintext, as Icinga 2's GraphiteWriter lays it out under the expanded prefix:
//   <prefix>.perfdata.<label>.value <v> <time>   (.warn .crit .min .max with thresholds)
//   <prefix>.metadata.state <n> <time>          (.state_type .current_attempt .latency .execution_time)
// InfluxDB line protocol, as Icinga 2's InfluxdbWriter (tags hostname, service, metric):
//   <measurement>,hostname=<h>,service=<s>,metric=<label> value=<v>[,warn=…,crit=…,min=…,max=…][,unit="…"]
//   <time> <measurement>,hostname=<h>,service=<s>
//   state=<n>i,state_type=<n>i,current_attempt=<n>i,latency=…,execution_time=… <time>
#pragma once

#include "tsdb/sample.hpp"

#include <string>

namespace vedette::tsdb {

struct LineOptions {
  bool thresholds = true;  // warn, crit, min and max where the plugin gave them as plain numbers
  bool metadata = true;    // state, state_type (1 hard, 0 soft), current_attempt, latency, execution_time
};

void append_graphite_lines(const Sample& s, const LineOptions& options, std::string& out);

// The measurement is s.name up to its first '!', so that $SERVICECHECKCOMMAND$ names the command without
// its arguments (Icinga 2's check_command). Time in seconds (the writer asks for precision=s).
void append_influx_lines(const Sample& s, const LineOptions& options, std::string& out);

}  // namespace vedette::tsdb
