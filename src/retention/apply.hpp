// Puts what retention.dat kept back into the run-time state, with the rules of Naemon's reader
// (xrddefault_read_state_information): retain_state_information, use_retained_program_state,
// use_retained_scheduling_info with retention_scheduling_horizon, the retained_*_attribute_mask options,
// each object's retain_status_information / retain_nonstatus_information, modified attributes applied
// only where their command or timeperiod still exists, and the fix-ups Naemon makes at the end of each
// block (hard problem states at max_check_attempts, expired acknowledgements dropped, …). Objects that are
// no longer configured are skipped and counted (the core logs the counts; Naemon says nothing).
//
// Core thread, at start-up (and after a reload), after the hot state holds its initial values and before the
// first check is scheduled:
//
//   LoadResult r = load(main.state_retention_file, {model, main, hosts, services}, now);
//   for (const Warning& w : r.warnings) log("Warning: " + format_warning(path, w));
//   counters = r.applied.program;  // the program block's counters, for the core to take over
//
// Every field goes to the hot state, last_update too (CheckState::last_update), so the next snapshot writes
// it back. Where Vedette departs from Naemon's reader, docs/compatibility.md ("retention.dat") says why.
#pragma once

#include "config/main_config.hpp"
#include "model/model.hpp"
#include "retention/reader.hpp"
#include "retention/state_names.hpp"
#include "state/check_state.hpp"
#include "state/contact_state.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::retention {

// What apply() reads and changes. `main` supplies the retention options and is the program's run-time
// flags: with use_retained_program_state, enable_notifications, execute_service_checks, … and the global
// handlers are overwritten where the file's modified attributes say they were changed.
struct Target {
  const model::Model& model;
  config::MainConfig& main;
  std::vector<state::HostState>& hosts;        // indexed like model.hosts, at their initial values
  std::vector<state::ServiceState>& services;  // indexed like model.services
  std::vector<state::ContactState>& contacts;  // indexed like model.contacts, as configured
};

struct ApplyCounts {
  std::size_t hosts = 0;  // blocks applied to a configured object
  std::size_t services = 0;
  std::size_t contacts = 0;
  std::size_t hosts_dropped = 0;  // blocks for objects no longer configured
  std::size_t services_dropped = 0;
  std::size_t contacts_dropped = 0;
  std::size_t comments_dropped = 0;  // by Naemon's rules: object gone, not persistent, acknowledgement over
  std::size_t downtimes_dropped = 0;
};

struct ApplyResult {
  ProgramCounters program;
  Time last_program_stop = 0;       // info.created
  bool scheduling_info_ok = false;  // next_check values were taken (see initial_check_delay)
  ApplyCounts counts;
  // Comments and downtimes to restore, in file order, after Naemon's rules; for the issue that adds them
  // to the engine. Until then they can be handed to every Snapshot unchanged.
  std::vector<Comment> comments;
  std::vector<Downtime> downtimes;
  std::vector<Warning> warnings;  // values out of range (the block's line)
};

[[nodiscard]] ApplyResult apply(const Data& data, Target target, Time now);

struct LoadResult {
  Data::Status status = Data::Status::ok;  // missing: nothing applied, not an error (first start)
  std::string error;                       // Status::error: why the file could not be read
  std::vector<Warning> warnings;           // reader's and apply()'s, in file order per source
  ApplyResult applied;
};

// Applies retention.dat text given in pieces that each end at a block boundary, as format_retention()
// hands them out: a reload turns the running core's state into the new model's this way, without the
// whole text (170 MB at 100k services) in memory at once. Any thread; finish() once.
class TextApplier {
 public:
  TextApplier(Target target, Time now);
  ~TextApplier();
  TextApplier(const TextApplier&) = delete;
  TextApplier& operator=(const TextApplier&) = delete;

  void feed(std::string_view blocks);
  [[nodiscard]] LoadResult finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The whole text at once.
[[nodiscard]] LoadResult apply_text(std::string_view text, Target target, Time now);

// Reads and applies `path` block by block without keeping the parsed file: what the core calls at start-up.
// The file is parsed on a thread of its own (parse_ahead.hpp) and applied on the caller's.
// Does not read anything when main.retain_state_information is off (Naemon neither).
[[nodiscard]] LoadResult load(const std::string& path, Target target, Time now);

// The first check's delay after start-up when use_retained_scheduling_info is on (Naemon's checks_init_*):
// a retained next_check within one check interval of now is kept; one missed by up to an interval runs
// within min(retained_scheduling_randomize_window, interval); anything else (including no retained value)
// at a random point of the first interval, as without retention. `random01` is uniform in [0, 1).
[[nodiscard]] double initial_check_delay(Time retained_next_check, Time now, double interval_s,
                                         int randomize_window, double random01);

}  // namespace vedette::retention
