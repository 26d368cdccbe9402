// The core-thread state every part of the core reads and changes: the configuration and its model, the hot
// state of hosts, services and contacts, the comment and downtime books, the timeperiods, the clock, the loop
// and the main log, and the run's counters. The Core owns one World; its components (annotations, object
// commands, freshness, flap alerts, …) each keep a reference and own only their own state and timers beside
// it; what only some of them use (the notifier, where side commands go) is passed to those explicitly. A
// reload replaces what is inside (model, hot state, books), never the World, so a reference taken at
// start-up stays good. Every component includes this header: it declares what it only names (the books,
// macros, the notifier's view) for the components that use those to include. Core thread only.
//
//   World world(std::move(configuration), clock, log_options);
//   CheckState& st = world.state_of(world.check_of(service));
//   world.log("SERVICE ALERT: …");
#pragma once

#include "config/loader.hpp"
#include "engine/state/check_id.hpp"
#include "engine/state/check_sources.hpp"
#include "engine/state/check_state.hpp"
#include "engine/state/check_stats.hpp"
#include "engine/state/core_time.hpp"
#include "engine/state/state_settings.hpp"
#include "engine/state/state_table.hpp"
#include "files/event_counts.hpp"
#include "files/log_file.hpp"
#include "loop/clock.hpp"
#include "loop/loop.hpp"
#include "state/contact_state.hpp"
#include "timeperiod/day_cache.hpp"
#include "timeperiod/evaluator.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string_view>
#include <type_traits>
#include <vector>

namespace vedette::engine {

class CommentBook;
class DowntimeBook;
struct MacroContext;
struct NotifierWorld;

struct World {
  // `configuration` is moved from in here (after the caller's other arguments read it).
  World(config::Configuration&& configuration, loop::Clock& clock, const files::LogFileOptions& log_options,
        std::uint64_t random_seed);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  loop::Clock& clock;
  loop::Loop loop;
  config::Configuration cfg;                        // its model is moved to model_owner
  std::shared_ptr<const model::Model> model_owner;  // shared with the snapshots writer threads still hold
  const model::Model* model;                        // model_owner's
  const config::MainConfig& main;                   // cfg.main, with the run-time switches commands set
  files::LogFile log_file;

  StateTable<HostState> hosts;        // indexed like model->hosts
  StateTable<ServiceState> services;  // indexed like model->services
  std::vector<state::ContactState> contacts;
  std::unique_ptr<CommentBook> comments;
  std::unique_ptr<DowntimeBook> downtimes;  // refers to comments

  std::vector<timeperiod::Period> periods;  // the evaluator's view of model->timeperiods
  timeperiod::DayCache day_cache;
  timeperiod::Evaluator evaluator;

  StateSettings settings;      // the main-config values the state logic reads
  EventNumbering numbering;    // event and problem ids of state changes
  files::EventCounts events;   // what the core has done, for Livestatus (comments/downtimes: the books')
  CheckStats check_stats;      // status.dat's checks in the last 1/5/15 minutes
  CheckSources check_sources;  // the names CheckState::check_source indexes
  // The program's modified attributes: the MODATTR_* bits program-wide switches set, retained.
  unsigned long modified_host_attributes = 0;
  unsigned long modified_service_attributes = 0;
  Time program_start = 0;
  Time last_program_stop = 0;  // retention.dat's info.created
  std::mt19937_64 rng;         // the random spread of first checks and rescheduled ones

  // Check ids: services first (ServiceId i is check i), then hosts.
  [[nodiscard]] CheckIds check_ids() const { return CheckIds{services.size()}; }
  [[nodiscard]] std::size_t check_count() const { return check_ids().count(hosts.size()); }
  [[nodiscard]] bool is_service(CheckId check) const { return check_ids().is_service(check); }
  [[nodiscard]] CheckId check_of(model::HostId h) const { return check_ids().of(h); }
  [[nodiscard]] CheckId check_of(model::ServiceId s) const { return check_ids().of(s); }
  [[nodiscard]] model::HostId host_of(CheckId check) const { return check_ids().host(check); }
  [[nodiscard]] model::ServiceId service_of(CheckId check) const { return check_ids().service(check); }
  // The host a check belongs to: its own, or its service's.
  [[nodiscard]] model::HostId owner_host(CheckId check) const {
    return is_service(check) ? model->services[model::index(check)].host : host_of(check);
  }
  // Calls f with the check's own id, a ServiceId or a HostId (the books take either).
  template <typename F>
  std::invoke_result_t<F, model::ServiceId> with_object(CheckId check, F&& f) const {
    if (is_service(check)) return f(service_of(check));
    return f(host_of(check));
  }
  [[nodiscard]] CheckState& state_of(CheckId check) {
    if (is_service(check)) return services[model::index(check)];
    return hosts[model::index(host_of(check))];
  }
  [[nodiscard]] const CheckState& state_of(CheckId check) const {
    if (is_service(check)) return services[model::index(check)];
    return hosts[model::index(host_of(check))];
  }
  [[nodiscard]] const model::Checkable& checkable_of(CheckId check) const {
    if (is_service(check)) return model->services[model::index(check)];
    return model->host(host_of(check));
  }

  [[nodiscard]] Instant now_instant() const { return {loop.now(), clock.wall_now()}; }
  [[nodiscard]] Time now_epoch() const { return to_epoch(clock.wall_now()); }
  // Naemon's last_update: stamped whenever something changes an object's status (a result, a command), and
  // for every object when the core starts or reloads (its update_all_status_data).
  void mark_updated(CheckState& st) const { st.last_update = to_timeval(clock.wall_now()); }
  void mark_all_updated();
  [[nodiscard]] double interval_seconds(double interval) const { return interval * main.interval_length; }

  // Re-arms a periodic timer one period after its previous due time `due` (not after now: timers fire up to
  // the loop's slack early, and the period must not shrink by that much each time); `due` becomes the new
  // one.
  void arm_periodic(loop::TimerId timer, loop::MonoTime& due, loop::Duration period) {
    due = due == loop::MonoTime{} ? loop.now() + period : std::max(due + period, loop.now());
    loop.arm_timer(timer, due);
  }

  // A line in the main log, "[now] text".
  void log(std::string_view text);
  // "<kind> HOST STATE: …" and "<kind> SERVICE STATE: …" for every object (INITIAL at start-up and reload,
  // CURRENT after a log rotation), in Naemon's object order (by name), as it walks its lists.
  void log_states(std::string_view kind);

  [[nodiscard]] bool in_period(model::TimeperiodId period, Time now) const;
  // The check_period in effect: CHANGE_*_CHECK_TIMEPERIOD's (looked up by name: rare) or the configured one.
  [[nodiscard]] model::TimeperiodId check_period_of(const model::Checkable& cfg, const CheckState& st) const;
  // What the macros of a host's or service's commands (checks, handlers, perfdata) read.
  [[nodiscard]] MacroContext object_macros(CheckId check, Time now) const;
  // What the notifier reads and changes.
  [[nodiscard]] NotifierWorld notifier_world(Time now);
  // The snapshots' copy of contacts, taken again after a change (contacts change rarely).
  [[nodiscard]] std::shared_ptr<const std::vector<state::ContactState>> contacts_snapshot() const;
  void contacts_changed() { contacts_snapshot_.reset(); }

  // Again after a reload or retention.dat changed the configuration's values.
  void build_periods();
  void apply_main_settings();

 private:
  mutable std::shared_ptr<const std::vector<state::ContactState>> contacts_snapshot_;
  const std::function<void()> on_contacts_changed_ = [this] { contacts_changed(); };
};

}  // namespace vedette::engine
