// SIGHUP reload, the part that runs beside the core. A thread named "reload" loads and validates the new
// configuration, writes its objects.cache and works out the state it starts from, while the core goes on
// running checks; the core then swaps it in (Core) in a few milliseconds. A configuration with errors is
// only reported: the running one stays untouched.
//
//   Reloader reloader;                                  // a core member
//   loop.watch(reloader.fd(), loop::Interest::read, h);  // readable once a prepared config is ready
//   reloader.start({config_path, state_snapshot, now});           // at SIGHUP
//   std::unique_ptr<PreparedConfig> p = reloader.take();  // fd readable; p->ok() or log p->diags
//
// The state comes from a snapshot of the running core taken at SIGHUP (files::StatusSnapshot), formatted as
// retention.dat, parsed and applied to the new model in memory: the same rules as the retention.dat Naemon
// writes and reads back on its restart (modified attributes checked against the new config, comments and
// downtimes of objects that are gone dropped, use_retained_program_state). The core overwrites the hot
// state of every object that still exists with its state at the swap, so nothing that happened in between
// is lost.
#pragma once

#include "config/diagnostics.hpp"
#include "config/loader.hpp"
#include "engine/books/books.hpp"
#include "engine/state/check_id.hpp"
#include "engine/state/check_state.hpp"
#include "files/state_snapshot.hpp"
#include "loop/wakeup.hpp"
#include "retention/apply.hpp"
#include "state/contact_state.hpp"

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace vedette::engine {

struct ReloadRequest {
  std::string config_path;                             // the main config file the daemon was started with
  std::shared_ptr<const files::StatusSnapshot> state;  // the running core's, taken at SIGHUP
  Time now = 0;
};

struct PreparedConfig {
  config::SourceFiles files;  // the diagnostics point into it
  config::Diagnostics diags;
  config::Configuration configuration;        // the new one, when ok()
  std::vector<HostState> hosts;               // indexed like configuration.model->hosts
  std::vector<ServiceState> services;         // indexed like configuration.model->services
  std::vector<state::ContactState> contacts;  // indexed like configuration.model->contacts
  retention::ApplyResult retained;            // counters and books' lists for the new model
  Books books;                            // the comments and downtimes of `state`, by name, for the new model
  std::string object_cache_error;         // objects.cache could not be written (the reload goes on)
  std::chrono::microseconds load_time{};  // reading and validating the configuration
  std::chrono::microseconds prepare_time{};  // objects.cache and the state

  [[nodiscard]] bool ok() const { return configuration.model != nullptr && !diags.has_errors(); }
};

class Reloader {
 public:
  Reloader() = default;
  ~Reloader();  // waits for a reload under way
  Reloader(const Reloader&) = delete;
  Reloader& operator=(const Reloader&) = delete;

  [[nodiscard]] int fd() const { return done_.fd(); }
  [[nodiscard]] bool busy() const { return thread_.joinable(); }

  // Core thread; not while busy(). The thread signals fd() when the result is ready.
  void start(ReloadRequest request);
  // Core thread, once fd() is readable: the result, and the thread is joined. Null when none is ready.
  [[nodiscard]] std::unique_ptr<PreparedConfig> take();

  // Core thread: frees what the swap replaced (the old model, its state: tens of ms at 100k objects) on a
  // thread of its own, then gives the freed memory back to the system.
  void dispose(std::shared_ptr<void> garbage);

 private:
  loop::Wakeup done_;
  std::thread thread_;
  std::thread disposer_;
  std::mutex mutex_;
  std::unique_ptr<PreparedConfig> result_;  // guarded by mutex_
};

// Loads and prepares a configuration as the reload thread does, on the calling thread.
[[nodiscard]] std::unique_ptr<PreparedConfig> prepare_config(const ReloadRequest& request);

// Every host and service at its configured initial state, as before the first check.
void initial_states(const model::Model& model, std::vector<HostState>& hosts,
                    std::vector<ServiceState>& services);

// The swap's first step: which checks of the running configuration (`old`) go on in the new one (`next`),
// by host name, and by host name and service description.
struct CheckMapping {
  ByCheck<CheckId> old_of_new;  // per new check; k_no_check: a new object
  ByCheck<CheckId> new_of_old;  // per old check; k_no_check: an object the reload removes
  std::size_t kept = 0;
};
[[nodiscard]] CheckMapping map_checks(const model::Model& old, const model::Model& next);

// The hot state the new configuration starts from: the prepared one (retention.dat's rules), in which every
// object that is kept gets its exact current state, moved from `hosts` and `services` (indexed like `old`).
// What commands changed stays the prepared one: retention.dat's rules decide which changes survive a changed
// configuration; last_update is stamped anew after the swap. The whole HostState or ServiceState is kept,
// not only its CheckState: the flap history holds the id of the flapping comment the book keeps, which
// retention.dat has no key for. A hard problem stays at the last attempt, however max_check_attempts changed.
// Contacts keep their notification times.
void keep_current_state(PreparedConfig& p, const CheckMapping& mapping, const model::Model& old,
                        const model::Model& next, std::vector<HostState>& hosts,
                        std::vector<ServiceState>& services,
                        const std::vector<state::ContactState>& contacts);

// objects.cache for `model` (main's object_cache_file, in its object_cache_format): empty, or why it
// failed. `path` given: that file instead (-p writes the same text to precached_object_file). Reads the
// model only, so it may run beside a core that reads the same model.
[[nodiscard]] std::string write_object_cache(const config::MainConfig& main, const model::Model& model,
                                             Time now, const std::string* path = nullptr);

}  // namespace vedette::engine
