// Mod-Gearman's payloads in clear text: newline-separated key=value lines, read up to the first line
// without a value. Jobs go from the core to the workers, results come back on the result queue. Formatting
// gives byte for byte what Mod-Gearman 5 sends; parsing accepts what its NEB module and C worker accept,
// plus what ConSol's Go worker and send_gearman send. Transport (encryption, base64) is in transport.hpp.
// Plain functions and values; any thread.
#pragma once

#include "base/expected.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::gearman {

enum class JobType : std::uint8_t { host, service, eventhandler, notification };
[[nodiscard]] std::string_view job_type_name(JobType type);  // "host", "service", ...

// Times on the wire are seconds since the epoch with six decimals (Mod-Gearman's "%Lf"); here they are
// µs since the epoch, 0 meaning absent.
struct Job {
  JobType type = JobType::service;
  // host, service
  std::string result_queue;         // where the worker sends the result
  std::string target_queue;         // the queue the job went to (informational, Mod-Gearman >= 5)
  std::string host_name;            // also in service jobs
  std::string service_description;  // service
  std::int64_t core_time_us = 0;    // when the core meant the check to start (now - latency), or the
                                    // handler/notification was raised; workers measure max-age from it
  int timeout_s = 0;                // host, service: the plugin's timeout; 0 lets the worker decide
  // eventhandler, notification
  std::int64_t start_time_us = 0;
  std::string contact;             // notification: the contact's name, or "GLOBAL"
  std::string plugin_output;       // notification
  std::string long_plugin_output;  // notification
  // all
  std::string command_line;  // fully macro-expanded
  // Read from older NEB modules (before 2022: start_time= and next_check= in check jobs); never written.
  std::int64_t next_check_us = 0;
};

// The NEB module's text for the job's type (handle_host_check, handle_svc_check, handle_eventhandler,
// handle_notifications): its keys in its order, ending in "\n\n\n". A newline inside a value is written
// as the two characters "\n", as the NEB module does for notification command lines.
[[nodiscard]] std::string format_job(const Job& job);
// What a worker reads (worker_client.c get_job). Errors: text not starting with "type=" (the Go worker's
// test for a wrong key), an unknown type, no command_line, no host_name (host and service jobs) or
// service_description (service jobs), a number that does not parse.
[[nodiscard]] base::Expected<Job> parse_job(std::string_view text);

struct Result {
  std::string host_name;
  std::string service_description;  // empty for a host result
  bool passive = false;             // type=passive (send_gearman -p, duplicate results)
  int return_code = 0;
  bool exited_ok = true;
  bool early_timeout = false;
  bool scheduled_check = true;
  int check_options = 0;
  std::int64_t core_start_time_us = 0;  // the job's core time, echoed by the worker; 0 = not sent
  std::int64_t start_time_us = 0;       // when the plugin started on the worker; 0 = not sent
  std::int64_t finish_time_us = 0;      // 0 = not sent
  std::int64_t latency_us = 0;          // extra latency the sender reports (send_gearman's latency=)
  std::string source;                   // "Mod-Gearman Worker @ <identifier>", "send_gearman", ...
  std::string output;                   // the plugin's output, newlines restored
  // The first field that did not parse and was left at its default ("core_start_time '4851…'"), for the
  // log; empty when every field parsed.
  std::string malformed;
};

// A result as the Go worker writes it (type first, so a clear result passes accept_clear_results; output
// last with its newlines escaped as "\n"). Fields at their defaults are left out: an empty value would end
// the reader's scan.
[[nodiscard]] std::string format_result(const Result& result);
// What the NEB module's result thread reads (result_thread.c get_results). Errors: no host_name or no
// output line (a wrong key, or not a Mod-Gearman result), a return_code that does not parse. Any other
// number that does not parse keeps its default and is named in `malformed`: the result still counts.
[[nodiscard]] base::Expected<Result> parse_result(std::string_view text);

// One key=value line, as views into the text it came from.
struct Field {
  std::string_view key;
  std::string_view value;
};
// The lines Mod-Gearman's readers look at: split at the first '=', up to the first line that has no '='
// or an empty value. That last line is included when it has a key and '=' (so "output=" reads as empty
// output); everything after it is ignored, which is how the "\n\n\n" ending stops the scan.
[[nodiscard]] std::vector<Field> split_fields(std::string_view text);

// The gearmand unique id of a check job (use_uniq_jobs=on): the MD5 of "host" or "host-service" in
// upper-case hex, as make_uniq. gearmand keeps one job per id and queue, so a check that is still queued
// is not queued twice.
[[nodiscard]] std::string unique_key(std::string_view host_name, std::string_view service_description);

// "1700000000.250000" for 1700000000250000 µs.
[[nodiscard]] std::string format_time(std::int64_t us);
// Decimal seconds, optionally signed, digits past the sixth decimal ignored (Mod-Gearman truncates too);
// surrounding blanks allowed. Nothing for anything else.
[[nodiscard]] std::optional<std::int64_t> parse_time(std::string_view text);

}  // namespace vedette::gearman
