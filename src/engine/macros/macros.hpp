// Naemon's macros ($HOSTNAME$, $ARG1$, $_HOSTFOO$, $SERVICESTATE:web01:HTTP$, …) and the expansion of a
// compiled command template into the argv a check runs with. Core thread only: values are read from the
// model and the live state arrays, and the expansion reuses thread-local scratch buffers.
//
//   MacroContext ctx{.model = m, .main = cfg, .host = id, .host_state = &hosts[i], .now = now,
//                    .all_hosts = &hosts, .all_services = &services};
//   ExpandedCommand cmd = expand_command(m.commands[c].compiled, ctx, m.args_of(call));
//
// What differs from Naemon is listed in docs/compatibility.md ("Macros").
#pragma once

#include "config/command_compiler.hpp"
#include "config/main_config.hpp"
#include "engine/state/check_state.hpp"
#include "model/command_template.hpp"
#include "model/model.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vedette::timeperiod {
class Evaluator;
}

namespace vedette::engine {

// How many downtimes an object is in now, as the downtime book says ($HOSTDOWNTIME$, $SERVICEDOWNTIME$, the
// summary macros' handled problems, the TSDB writers' downtime tag). The macros sit below the books
// (engine/annotations/), so they read the depth through this view instead of the book; empty, every depth
// is 0. Two plain function pointers, no allocation; the book must outlive the view.
//
//   ctx.downtime_depths = DowntimeDepths(book);   // any type with depth(HostId) and depth(ServiceId)
//   const int depth = ctx.downtime_depths(ctx.service);
class DowntimeDepths {
 public:
  DowntimeDepths() = default;
  template <class Book>
  explicit DowntimeDepths(const Book& book)
      : book_(&book),
        host_([](const void* b, model::HostId h) { return static_cast<const Book*>(b)->depth(h); }),
        service_([](const void* b, model::ServiceId s) { return static_cast<const Book*>(b)->depth(s); }) {}

  [[nodiscard]] explicit operator bool() const { return book_ != nullptr; }
  [[nodiscard]] int operator()(model::HostId h) const { return book_ != nullptr ? host_(book_, h) : 0; }
  [[nodiscard]] int operator()(model::ServiceId s) const { return book_ != nullptr ? service_(book_, s) : 0; }

 private:
  const void* book_ = nullptr;
  int (*host_)(const void*, model::HostId) = nullptr;
  int (*service_)(const void*, model::ServiceId) = nullptr;
};

// What Naemon sets only while it notifies ($NOTIFICATIONTYPE$, $NOTIFICATIONAUTHOR$, …; the
// $…ACKAUTHOR$/$…ACKCOMMENT$ macros too for an acknowledgement). Views, owned by the notifier.
struct NotificationMacros {
  std::string_view type;  // "PROBLEM", "RECOVERY", "ACKNOWLEDGEMENT", "DOWNTIMESTART", …
  int number = 0;         // $NOTIFICATIONNUMBER$
  std::string_view recipients;
  bool escalated = false;
  std::string_view author;
  std::string_view author_name;  // the author's contact, when one has that name or alias
  std::string_view author_alias;
  std::string_view comment;
  bool acknowledgement = false;  // also $HOSTACKAUTHOR$… / $SERVICEACKAUTHOR$…
  // >= 0: the notified object's $HOSTDOWNTIME$ / $SERVICEDOWNTIME$. Naemon sends DOWNTIMESTART before the
  // starting downtime counts in the object's depth, and DOWNTIMEEND after the ending one left it.
  int downtime_depth = -1;
  int host_downtime_depth = -1;  // >= 0: $HOSTDOWNTIME$ of the notified object's host, at the same moment
};

// Everything a macro may read. Nothing is owned; all of it must outlive the call it is passed to.
struct MacroContext {
  const model::Model& model;
  const config::MainConfig& main;
  model::HostId host = model::no_id<model::HostId>();
  model::ServiceId service = model::no_id<model::ServiceId>();  // no_id: a host check, handler, …
  const HostState* host_state = nullptr;        // null: taken from all_hosts[host] if that is set
  const ServiceState* service_state = nullptr;  // null: taken from all_services[service] if that is set
  Time now = 0;                                 // $TIMET$, $DATE$, durations: read once by the caller
  // Indexed by HostId / ServiceId. Needed by on-demand macros of other objects and by the summary macros;
  // without them those macros are unknown (left as written).
  const std::vector<HostState>* all_hosts = nullptr;
  const std::vector<ServiceState>* all_services = nullptr;

  // Optional parts.
  model::ContactId contact = model::no_id<model::ContactId>();  // notifications: $CONTACT…$ macros
  const timeperiod::Evaluator* timeperiods = nullptr;           // $ISVALIDTIME:…$, $NEXTVALIDTIME:…$
  Time program_start = 0;                                       // $PROCESSSTARTTIME$, $EVENTSTARTTIME$
  DowntimeDepths downtime_depths = {};                          // $HOSTDOWNTIME$, $SERVICEDOWNTIME$ (else 0)
  const NotificationMacros* notification = nullptr;             // while notifying
  // Expanded $ARGn$ values (index 0 = $ARG1$). expand_command fills this itself from the raw arguments.
  std::span<const std::string_view> args = {};
  // Which bytes of each of `args` came from outside the configuration (docs/compatibility.md, "Macros");
  // index-aligned, shorter when the rest have none. expand_command fills this too.
  std::span<const config::OutsideSpans> args_outside = {};
};

// Naemon's process_macros options (its STRIP_ILLEGAL_MACRO_CHARS|ESCAPE_MACRO_CHARS and
// URL_ENCODE_MACRO_CHARS). Check, handler and notification commands use k_strip_illegal.
enum MacroOptions : unsigned {
  k_macro_plain = 0,
  k_strip_illegal = 1u << 0,  // output-type macros lose control bytes and illegal_macro_output_chars
  k_url_encode = 1u << 2,     // every macro value is percent-encoded (RFC 3986 unreserved bytes kept)
};

// The raw value of one macro: `name` is what sits between the dollars ("HOSTADDRESS", "ARG1",
// "HOSTSTATE:web01", "_SERVICEFOO"). Returns false if Naemon would not know it; `out` is then unchanged.
// Values are not cleaned of illegal_macro_output_chars (that is process_macros' job).
[[nodiscard]] bool macro_value(std::string_view name, const MacroContext& ctx, std::string& out);

// Naemon's process_macros_r: `text` with every $MACRO$ replaced, `$$` as '$', unknown macros kept as
// written. Appends to `out`.
void process_macros(std::string_view text, const MacroContext& ctx, unsigned options, std::string& out);
// As above; `outside` gets the spans of `out` (positions in `out`, from its size on entry) whose text came
// from outside the configuration, for config::split_expanded_line.
void process_macros(std::string_view text, const MacroContext& ctx, unsigned options, std::string& out,
                    config::OutsideSpans& outside);

struct ExpandedCommand {
  // shell == false: exec argv[0] with argv. shell == true: argv is one element, run by `/bin/sh -c`.
  std::vector<std::string> argv;
  bool shell = false;
  // Leading NAME=value words of the line, after the environment macros when enable_environment_macros=1;
  // apply in order (a later entry wins).
  std::vector<std::pair<std::string, std::string>> env;
  // The command's load-time decision, for the executor (set by the caller, not by expand_command).
  model::NativePlugin native = model::NativePlugin::none;
};

// The command line of `tmpl` with `raw_args` as $ARG1$…, each macro-expanded first as Naemon does (an
// argument sees the arguments before it). Split exactly as Naemon's runcmd splits the expanded line, except
// that a value from outside the configuration (plugin output, comments, …) never changes the split or the
// choice of /bin/sh, and is escaped for the shell where the line runs under it (docs/compatibility.md,
// "Macros").
// Fast path (every value lands inside its word): the words are filled from the template's pieces; it
// allocates only the returned argv vector and words that outgrow SSO (check_ping: 3 allocations, ~250 ns;
// 0 with the reusing overload, ~200 ns: bench/engine/macros_bench). Slow path (a value
// steers the split, or always_resplit): the whole line is expanded and config::split_expanded_line runs.
[[nodiscard]] ExpandedCommand expand_command(const model::CommandTemplate& tmpl, const MacroContext& ctx,
                                             std::span<const std::string_view> raw_args);

// As above into `out`, reusing its capacity (strings and vectors are overwritten, not reallocated).
void expand_command(const model::CommandTemplate& tmpl, const MacroContext& ctx,
                    std::span<const std::string_view> raw_args, ExpandedCommand& out);

// Nagios' environment macros: NAGIOS_<NAME> for every standard macro known in `ctx`, NAGIOS_ARGn,
// NAGIOS__HOST<VAR>/_SERVICE<VAR>/_CONTACT<VAR> (cleaned, non-empty only) and the contact addresses.
// Empty unless main.enable_environment_macros. Costly (every macro is computed): only when asked for.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> environment_macros(const MacroContext& ctx);

}  // namespace vedette::engine
