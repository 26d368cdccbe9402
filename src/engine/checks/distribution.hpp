// Checks, event handlers and notifications on gearmand for Mod-Gearman workers: what Mod-Gearman's NEB
// module does, built in. The options come from the main config; each object's queues are worked out once
// per configuration; the Distributor sends jobs through a gearman::GearmanLink and remembers which checks
// are out, so a check whose result never comes back is reported (an orphan) instead of waiting forever.
// Core thread only: the link's threads exchange values with it, and its log lines wait for the core.
//
//   gearman::OptionMessages messages;
//   std::optional<gearman::Options> options = distribution_options(main, messages);  // nothing: local only
//   Distributor d(*options, model);
//   if (const std::string* queue = d.queue(gearman::Work::service_check, check)) d.send(...);
#pragma once

#include "config/main_config.hpp"
#include "engine/macros/macros.hpp"
#include "engine/state/check_id.hpp"
#include "engine/state/check_state.hpp"
#include "exec/check_job.hpp"
#include "gearman/client.hpp"
#include "gearman/routing.hpp"
#include "loop/clock.hpp"
#include "model/model.hpp"

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::engine {

// Whether `path` names Mod-Gearman's NEB module: a file name starting with "mod_gearman" and ending in .o or
// .so (mod_gearman_naemon.o, mod_gearman.o, mod_gearman2.o, ...). The module is never loaded.
[[nodiscard]] bool is_mod_gearman_module(std::string_view path);

// The arguments of every Mod-Gearman module line, then Vedette's own gearman_options=, read as the NEB
// module reads its argument string and finished for the core. Nothing when neither is there. Errors in
// `messages` mean the options are unusable.
[[nodiscard]] std::optional<gearman::Options> distribution_options(const config::MainConfig& main,
                                                                   gearman::OptionMessages& messages);

// The text Mod-Gearman's workers run: the expanded command line in one piece. A line for the shell is sent
// as it is; otherwise the environment words and the argv words are joined with blanks, a word quoted when
// the worker's split (Naemon's runcmd) would otherwise cut or change it, so the worker runs the same argv.
[[nodiscard]] std::string remote_command_line(const ExpandedCommand& command);

// An active result from the result queue as the core's result processing takes it (Mod-Gearman's NEB module
// hands it to Naemon's the same way): the worker's return code and output, its start and finish times, or
// the arrival time for those it did not send. kind is host without a service_description; the caller sets
// generation (and passes the check id beside it). Fields the NEB module ignores or cannot trust
// (core_start_time) play no part.
[[nodiscard]] exec::CheckResult remote_check_result(gearman::IncomingResult& in);

// A check whose result has not come back in time.
struct Orphan {
  CheckId check{};
  std::string queue;
};

class Distributor {
 public:
  // Check ids as the core numbers them: services first, then hosts. Starts the link's threads.
  Distributor(gearman::Options options, const model::Model& model);
  ~Distributor();
  Distributor(const Distributor&) = delete;
  Distributor& operator=(const Distributor&) = delete;

  [[nodiscard]] const gearman::Options& options() const { return options_; }
  // The line logged at start and after a reload that changed the options.
  [[nodiscard]] std::string describe() const;
  // Readable when jobs the link gave up on wait, or it has something to log. Results are polled:
  // has_results(), on every loop iteration (a wakeup per result doubled the core's CPU per check).
  [[nodiscard]] int fd() const { return link_->fd(); }
  [[nodiscard]] bool has_results() const { return link_->has_results(); }

  // The queue for the work of `check` (an event handler or notification of that object), or nullptr to run
  // it locally.
  [[nodiscard]] const std::string* queue(gearman::Work work, CheckId check) const;

  // perfdata=: whether results' performance data go to gearmand.
  [[nodiscard]] bool distributes_perfdata() const { return !options_.perfdata_queues.empty(); }
  // After a result (the NEB module's handle_perfdata): with performance data and process_perf_data on (or
  // perfdata_send_all), the object's template with `ctx`'s macros goes to every perfdata queue, with a
  // unique id per queue and object in perfdata_mode=1, so gearmand keeps only the newest. The caller checks
  // process_performance_data. `service` is empty for a host.
  void send_perfdata(const MacroContext& ctx, const CheckState& state, std::string_view host,
                     std::string_view service);

  // Queues the job; false when the link refuses it (its queue is full, or the names do not fit gearmand).
  [[nodiscard]] bool send(gearman::Submission&& submission);
  // A check sent: remembered until take() or its deadline (side commands are not: no result comes back).
  void expect(CheckId check, std::uint32_t generation, loop::MonoTime deadline);

  // Whether `check` had a job out; it has none afterwards.
  bool take(CheckId check);
  // Checks with a job out (sent, no result or deadline yet).
  [[nodiscard]] std::size_t checks_out() const { return checks_out_; }
  // The link's counters and queue (takes its lock briefly).
  [[nodiscard]] gearman::LinkStats link_stats() const { return link_->stats(); }
  // The earliest deadline of a check still out; nothing when none is.
  [[nodiscard]] std::optional<loop::MonoTime> next_deadline();
  // Checks still out past their deadline at `now`, forgotten here.
  [[nodiscard]] std::vector<Orphan> orphans(loop::MonoTime now);

  void drain(std::vector<gearman::IncomingResult>& results, std::vector<gearman::Submission>& unsent) {
    link_->drain(results, unsent);
  }
  // The link's log lines since the last call (it reports from its own threads).
  [[nodiscard]] std::vector<std::string> take_log_lines();

  // A reload: the new model's queues, and the checks out under their new ids (`new_of_old`, k_no_check
  // for a check whose object is gone). The link is rebuilt only when its servers, key or result queue
  // changed; jobs it still held are then dropped and come back as orphans. True when it was rebuilt.
  bool reconfigure(gearman::Options options, const model::Model& model, const ByCheck<CheckId>& new_of_old);

 private:
  struct Out {
    loop::MonoTime deadline;
    CheckId check;
    std::uint32_t generation;
    friend bool operator>(const Out& a, const Out& b) { return a.deadline > b.deadline; }
  };

  void route(const model::Model& model);
  void start_link();
  void prepare_templates();

  gearman::Options options_;
  std::vector<std::string> queue_names_;  // [0] unused: 0 means local
  // Per check: the queue index of its check, its event handlers and its notifications.
  ByCheck<std::uint16_t> check_queue_, handler_queue_, notification_queue_;
  ByCheck<std::uint32_t> out_;  // per check: the generation of the job out, 0 none
  std::size_t checks_out_ = 0;  // how many of out_ are not 0
  std::priority_queue<Out, std::vector<Out>, std::greater<>> deadlines_;  // may hold stale entries
  std::unique_ptr<gearman::GearmanLink> link_;
  std::string host_perfdata_template_, service_perfdata_template_;  // prepared (engine/perfdata/perfdata.hpp)
  std::string perfdata_line_;                                       // reused

  struct LogLines {
    std::mutex mutex;
    std::vector<std::string> lines;
  };
  std::shared_ptr<LogLines> log_lines_ = std::make_shared<LogLines>();
};

}  // namespace vedette::engine
