#include "retention/writer.hpp"

#include "files/annotation_blocks.hpp"
#include "files/atomic_file.hpp"
#include "files/naemon_lines.hpp"
#include "files/state_file_thread.hpp"
#include "metrics/core_metrics.hpp"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <pthread.h>
#include <signal.h>
#include <thread>
#include <unistd.h>
#include <utility>

namespace vedette::retention {
namespace {

// Text goes to write() in chunks of about this size, so a 100k-service file (~170 MB) is never in memory
// whole.
constexpr std::size_t k_chunk = std::size_t{1} << 20;

using Out = files::NaemonLines;
using Snapshot = files::StatusSnapshot;
using ObjectStatus = files::StatusState;

std::string_view period_name(const model::Model& m, model::TimeperiodId id) {
  return model::is_set(id) ? m.timeperiods[model::index(id)].name : std::string_view{};
}

void write_header(Out& o, const Snapshot& s) {
  o.raw(
      "# Vedette state retention file, in Naemon's retention.dat format.\n"
      "# Written automatically; edits are overwritten at the next save.\n");
  o.raw("info {\n");
  o.time("created=", s.program.created);
  o.str("version=", s.program.version);
  o.raw("}\n");
}

void write_program(Out& o, const Snapshot& s) {
  const files::StatusProgram& p = s.program;
  const ProgramCounters& c = p.counters;
  o.raw("program {\n");
  o.unum("modified_host_attributes=", c.modified_host_attributes & ~p.masks.process_host);
  o.unum("modified_service_attributes=", c.modified_service_attributes & ~p.masks.process_service);
  o.flag("enable_notifications=", p.enable_notifications);
  o.flag("active_service_checks_enabled=", p.active_service_checks_enabled);
  o.flag("passive_service_checks_enabled=", p.passive_service_checks_enabled);
  o.flag("active_host_checks_enabled=", p.active_host_checks_enabled);
  o.flag("passive_host_checks_enabled=", p.passive_host_checks_enabled);
  o.flag("enable_event_handlers=", p.enable_event_handlers);
  o.flag("obsess_over_services=", p.obsess_over_services);
  o.flag("obsess_over_hosts=", p.obsess_over_hosts);
  o.flag("check_service_freshness=", p.check_service_freshness);
  o.flag("check_host_freshness=", p.check_host_freshness);
  o.flag("enable_flap_detection=", p.enable_flap_detection);
  o.flag("process_performance_data=", p.process_performance_data);
  o.str("global_host_event_handler=", p.global_host_event_handler);
  o.str("global_service_event_handler=", p.global_service_event_handler);
  o.str("global_host_notification_handler=", p.global_host_notification_handler);
  o.str("global_service_notification_handler=", p.global_service_notification_handler);
  o.unum("next_comment_id=", c.next_comment_id);
  o.unum("next_downtime_id=", c.next_downtime_id);
  o.unum("next_event_id=", c.next_event_id);
  o.raw("}\n");
}

// Everything a host or service block needs besides the run-time status: configured and changed attributes.
class ObjectView {
 public:
  ObjectView(const Snapshot& s, const model::Checkable& cfg, const ObjectStatus& st)
      : s_(s), cfg_(cfg), st_(st), ov_(s.overrides_of(st)) {}

  std::string_view command(const model::CommandCall& configured,
                           const std::optional<std::string> state::Overrides::*field) const {
    if (ov_ != nullptr && (ov_->*field).has_value()) return *(ov_->*field);
    return configured.raw;
  }
  std::string_view period(model::TimeperiodId configured,
                          const std::optional<std::string> state::Overrides::*field) const {
    if (ov_ != nullptr && (ov_->*field).has_value()) return *(ov_->*field);
    return period_name(*s_.model, configured);
  }
  double check_interval() const {
    return ov_ != nullptr && ov_->check_interval ? *ov_->check_interval : cfg_.check_interval;
  }
  double retry_interval() const {
    return ov_ != nullptr && ov_->retry_interval ? *ov_->retry_interval : cfg_.retry_interval;
  }
  int max_attempts() const {
    return ov_ != nullptr && ov_->max_check_attempts ? *ov_->max_check_attempts : cfg_.max_check_attempts;
  }

  // "config:<key>=<configured>" and "<key>=<now>", only when they differ (as Naemon writes them).
  void flag(Out& o, Flag f) const {
    const bool configured = configured_flag(cfg_, f);
    const bool now = (st_.flags & state::flag_bit(f)) != 0;
    if (now == configured) return;
    const FlagInfo& info = flag_info(f);
    o.raw("config:");
    o.raw(info.key);
    o.flag("=", configured);
    o.raw(info.key);
    o.flag("=", now);
  }

  // retention.dat's notified_on_<state> flags; `state` is Naemon's state number.
  void notified_on(Out& o, std::string_view key, int state) const {
    o.flag(key, (st_.notification.notified_on & (1u << state)) != 0);
  }
  void notification_fields(Out& o, bool number_first) const {
    const state::NotificationState& n = st_.notification;
    if (number_first) {
      o.num("current_notification_number=", n.current_notification_number);
      o.uuid("current_notification_id=", n.current_notification_id);
      o.time("last_notification=", n.last_notification);
    } else {
      o.time("last_notification=", n.last_notification);
      o.num("current_notification_number=", n.current_notification_number);
      o.uuid("current_notification_id=", n.current_notification_id);
    }
  }
  void acknowledgement(Out& o) const {
    o.flag("problem_has_been_acknowledged=", st_.problem_has_been_acknowledged);
    o.num("acknowledgement_type=", st_.acknowledgement_type);
    o.time("acknowledgement_end_time=", st_.acknowledgement_end_time);
  }
  // Naemon's last_update, as the engine stamps it; without a stamp (a snapshot made without the engine),
  // the last check, else the file's time.
  void last_update(Out& o) const {
    const Timeval& read = st_.last_update;
    if (read.sec != 0) {
      o.timeval("last_update=", read.sec, read.usec);
    } else if (st_.has_been_checked) {
      o.timeval("last_update=", st_.last_check, 0);
    } else {
      o.timeval("last_update=", s_.program.created, 0);
    }
  }
  void custom_variables(Out& o) const {
    for (const model::CustomVariable& v : cfg_.custom_variables) {
      const std::string* changed =
          ov_ != nullptr && (st_.modified_attributes & k_modattr_custom_variable) != 0
              ? ov_->custom_variable(v.name)
              : nullptr;
      if (changed != nullptr) {
        o.custom("", v.name, /*modified=*/true, *changed);
      } else {
        o.custom("", v.name, /*modified=*/false, v.value);
      }
    }
  }

 private:
  const Snapshot& s_;
  const model::Checkable& cfg_;
  const ObjectStatus& st_;
  const state::Overrides* ov_;
};

void write_outputs(Out& o, const Snapshot& s, const ObjectStatus& st) {
  std::size_t at = st.text_offset;
  o.str("plugin_output=", s.text_at(at, st.output_size));
  at += st.output_size;
  o.str("long_plugin_output=", s.text_at(at, st.long_output_size));
  at += st.long_output_size;
  o.str("performance_data=", s.text_at(at, st.perf_data_size));
}

// The lines hosts and services share at the top of their blocks, up to problem_end.
void write_head(Out& o, const Snapshot& s, const model::Checkable& c, const ObjectView& v,
                const ObjectStatus& st, unsigned long mask) {
  o.unum("modified_attributes=", st.modified_attributes & ~mask);
  o.str("check_command=", v.command(c.check_command, &state::Overrides::check_command));
  o.str("check_period=", v.period(c.check_period, &state::Overrides::check_period));
  o.str("notification_period=", v.period(c.notification_period, &state::Overrides::notification_period));
  o.str("event_handler=", v.command(c.event_handler, &state::Overrides::event_handler));
  o.flag("has_been_checked=", st.has_been_checked);
  o.fixed<3>("check_execution_time=", st.execution_time);
  o.fixed<3>("check_latency=", st.latency);
  o.num("check_type=", st.check_type);
  o.num("current_state=", st.current_state);
  o.num("last_state=", st.last_state);
  o.num("last_hard_state=", st.last_hard_state);
  o.unum("last_event_id=", st.events.last_event_id);
  o.unum("current_event_id=", st.events.current_event_id);
  o.uuid("current_problem_id=", st.events.current_problem_id);
  o.uuid("last_problem_id=", st.events.last_problem_id);
  o.time("problem_start=", st.events.problem_start);
  o.time("problem_end=", st.events.problem_end);
  (void)s;
}

void write_flapping(Out& o, const state::FlapHistory& flap) {
  o.flag("is_flapping=", flap.is_flapping);
  o.fixed<2>("percent_state_change=", flap.percent_state_change);
  o.flag("check_flapping_recovery_notification=", flap.check_flapping_recovery_notification);
}

// The ring oldest first, as Naemon writes it.
void write_state_history(Out& o, const state::FlapHistory& flap) {
  std::array<std::uint8_t, state::k_state_history_entries> ordered;
  for (int i = 0; i < state::k_state_history_entries; ++i)
    ordered[static_cast<std::size_t>(i)] =
        flap.states[static_cast<std::size_t>((flap.index + i) % state::k_state_history_entries)];
  o.list("state_history=", std::span<const std::uint8_t>(ordered));
}

void write_host(Out& o, const Snapshot& s, const model::Host& h, const ObjectStatus& st) {
  const ObjectView v(s, h, st);
  o.raw("host {\n");
  o.str("host_name=", h.name);
  write_head(o, s, h, v, st, s.program.masks.host);
  write_outputs(o, s, st);
  o.time("last_check=", st.last_check);
  o.time("next_check=", st.next_check);
  o.num("check_options=", st.check_options);
  o.num("current_attempt=", st.current_attempt);
  o.num("max_attempts=", v.max_attempts());
  o.fixed<6>("normal_check_interval=", v.check_interval());
  // Naemon writes the check interval here for hosts; the retry interval is what the key names.
  o.fixed<6>("retry_check_interval=", v.retry_interval());
  o.num("state_type=", st.state_type);
  o.time("last_state_change=", st.last_state_change);
  o.time("last_hard_state_change=", st.last_hard_state_change);
  o.time("last_time_up=", st.last_time[0]);
  o.time("last_time_down=", st.last_time[1]);
  o.time("last_time_unreachable=", st.last_time[2]);
  v.notified_on(o, "notified_on_down=", state::k_host_down);
  v.notified_on(o, "notified_on_unreachable=", state::k_host_unreachable);
  v.notification_fields(o, /*number_first=*/false);
  v.flag(o, Flag::notifications);
  v.acknowledgement(o);
  v.flag(o, Flag::active_checks);
  v.flag(o, Flag::passive_checks);
  v.flag(o, Flag::event_handler);
  v.flag(o, Flag::flap_detection);
  v.flag(o, Flag::process_perf_data);
  v.flag(o, Flag::obsess);
  write_flapping(o, st.flap);
  v.last_update(o);
  write_state_history(o, st.flap);
  v.custom_variables(o);
  o.raw("}\n");
}

// Naemon orders a service block differently from a host block (attempts before the last_time_* values,
// outputs after them, acknowledgement among the flags, last_update before flapping); kept exactly.
void write_service(Out& o, const Snapshot& s, const model::Service& c, const ObjectStatus& st) {
  const ObjectView v(s, c, st);
  o.raw("service {\n");
  o.str("host_name=", c.host_name);
  o.str("service_description=", c.description);
  write_head(o, s, c, v, st, s.program.masks.service);
  o.num("current_attempt=", st.current_attempt);
  o.num("max_attempts=", v.max_attempts());
  o.fixed<6>("normal_check_interval=", v.check_interval());
  o.fixed<6>("retry_check_interval=", v.retry_interval());
  o.num("state_type=", st.state_type);
  o.time("last_state_change=", st.last_state_change);
  o.time("last_hard_state_change=", st.last_hard_state_change);
  o.time("last_time_ok=", st.last_time[0]);
  o.time("last_time_warning=", st.last_time[1]);
  o.time("last_time_unknown=", st.last_time[2]);
  o.time("last_time_critical=", st.last_time[3]);
  write_outputs(o, s, st);
  o.time("last_check=", st.last_check);
  o.time("next_check=", st.next_check);
  o.num("check_options=", st.check_options);
  v.notified_on(o, "notified_on_unknown=", state::k_state_unknown);
  v.notified_on(o, "notified_on_warning=", state::k_state_warning);
  v.notified_on(o, "notified_on_critical=", state::k_state_critical);
  v.notification_fields(o, /*number_first=*/true);
  v.flag(o, Flag::notifications);
  v.flag(o, Flag::active_checks);
  v.flag(o, Flag::passive_checks);
  v.flag(o, Flag::event_handler);
  v.acknowledgement(o);
  v.flag(o, Flag::flap_detection);
  v.flag(o, Flag::process_perf_data);
  v.flag(o, Flag::obsess);
  v.last_update(o);
  write_flapping(o, st.flap);
  write_state_history(o, st.flap);
  v.custom_variables(o);
  o.raw("}\n");
}

void write_contact(Out& o, const Snapshot& s, const model::Contact& c, const state::ContactState* st) {
  const state::ContactState e = st != nullptr ? *st : state::ContactState::from(c);
  o.raw("contact {\n");
  o.str("contact_name=", c.name);
  o.unum("modified_attributes=", e.modified_attributes);
  o.unum("modified_host_attributes=", e.modified_host_attributes & ~s.program.masks.contact_host);
  o.unum("modified_service_attributes=", e.modified_service_attributes & ~s.program.masks.contact_service);
  o.str("host_notification_period=", period_name(*s.model, e.host_notification_period));
  o.str("service_notification_period=", period_name(*s.model, e.service_notification_period));
  o.time("last_host_notification=", e.last_host_notification);
  o.time("last_service_notification=", e.last_service_notification);
  auto flag = [&](std::string_view key, bool configured, bool now) {
    if (now == configured) return;
    o.raw("config:");
    o.raw(key);
    o.flag("=", configured);
    o.raw(key);
    o.flag("=", now);
  };
  flag("host_notifications_enabled", c.host_notifications_enabled, e.host_notifications_enabled);
  flag("service_notifications_enabled", c.service_notifications_enabled, e.service_notifications_enabled);
  for (const model::CustomVariable& v : c.custom_variables) {
    const std::string* changed = e.custom_variable(v.name);
    o.custom("", v.name, changed != nullptr, changed != nullptr ? std::string_view(*changed) : v.value);
  }
  o.raw("}\n");
}

// Formats the whole file after what `buf` holds, handing the lines to `drain` whenever they hold k_chunk
// bytes or more (and at the end); drain clears them once written. Stops early and returns false when drain
// does.
template <typename Drain>
bool format_chunked(const Snapshot& s, std::string& buf, Drain&& drain) {
  Out o(buf);
  auto maybe_drain = [&] { return o.size() < k_chunk || drain(o); };
  write_header(o, s);
  write_program(o, s);
  if (s.model != nullptr) {
    const model::Model& m = *s.model;
    for (std::size_t i = 0; i < s.hosts.size(); ++i) {
      write_host(o, s, m.hosts[i], s.hosts[i]);
      if (!maybe_drain()) return false;
    }
    for (std::size_t i = 0; i < s.services.size(); ++i) {
      write_service(o, s, m.services[i], s.services[i]);
      if (!maybe_drain()) return false;
    }
    for (std::size_t i = 0; i < m.contacts.size(); ++i) {
      write_contact(o, s, m.contacts[i], s.contact_state(i));
      if (!maybe_drain()) return false;
    }
  }
  if (s.comments != nullptr) {
    for (const Comment& c : *s.comments) {
      files::write_comment_block<files::BlockStyle::retention>(o, c);
      if (!maybe_drain()) return false;
    }
  }
  if (s.downtimes != nullptr) {
    for (const Downtime& d : *s.downtimes) {
      files::write_downtime_block<files::BlockStyle::retention>(o, d);
      if (!maybe_drain()) return false;
    }
  }
  return o.size() == 0 || drain(o);
}

std::uint64_t micros_since(std::chrono::steady_clock::time_point start) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start)
          .count());
}

struct WriteReport {
  std::uint64_t bytes = 0;
  std::uint64_t format_us = 0;
};

// Naemon's temp name, "<file>XXXXXX", and its mode, 0600.
base::Status write_snapshot(const Snapshot& snapshot, const WriteOptions& options, std::string& buffer,
                            WriteReport& report) {
  const auto start = std::chrono::steady_clock::now();
  files::AtomicFile file;
  if (!file.open(options.path, "XXXXXX", S_IRUSR | S_IWUSR, files::AtomicFile::Io::direct)) {
    return base::Error{fmt::format("Unable to create temp file '{}' for writing retention data: {}",
                                   file.failure().temp_path, std::strerror(file.failure().error))};
  }
  std::chrono::steady_clock::duration io_time{};
  buffer.clear();
  bool ok = format_chunked(snapshot, buffer, [&](Out& chunk) {
    const auto io_start = std::chrono::steady_clock::now();
    const bool written = file.write(chunk.text());
    io_time += std::chrono::steady_clock::now() - io_start;
    if (!written) return false;
    report.bytes += chunk.size();
    chunk.clear();
    return true;
  });
  report.format_us =
      micros_since(start) -
      static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(io_time).count());
  if (ok) ok = file.commit(options.fsync);
  if (ok) return base::Status::ok();
  const files::AtomicFile::Failure& f = file.failure();
  if (f.step == "rename")
    return base::Error{
        fmt::format("Unable to update retention file '{}': {}", options.path, std::strerror(f.error))};
  if (f.step == "sync directory") {
    // The new file is in place; only its durability across a crash is in doubt.
    return base::Error{fmt::format("Unable to sync the directory of retention file '{}': {}", options.path,
                                   std::strerror(f.error))};
  }
  return base::Error{fmt::format("Unable to save retention file: {}", std::strerror(f.error))};
}

}  // namespace

void format_retention(const Snapshot& snapshot, std::string& out) {
  (void)format_chunked(snapshot, out, [](Out&) { return true; });
}

void format_retention(const Snapshot& snapshot, const std::function<void(std::string_view)>& on_chunk) {
  std::string buffer;
  (void)format_chunked(snapshot, buffer, [&](Out& chunk) {
    on_chunk(chunk.text());
    chunk.clear();
    return true;
  });
}

base::Status write_file(const Snapshot& snapshot, const WriteOptions& options) {
  if (options.path.empty()) return base::Status::ok();
  std::string buffer;
  WriteReport report;
  return write_snapshot(snapshot, options, buffer, report);
}

class Writer::Worker {
 public:
  explicit Worker(WriterOptions options) : options_(std::move(options)), thread_(options_.on_error) {
    thread_.start("retention", {.write = [this](const Snapshot& s) { write(s); }});
  }

  void publish(std::shared_ptr<const Snapshot> snapshot) {
    if (!options_.path.empty() && snapshot != nullptr) thread_.publish(std::move(snapshot));
  }
  bool wait_idle(std::chrono::milliseconds timeout) { return thread_.wait_idle(timeout); }
  WriterStats stats() const { return thread_.stats(); }
  std::string last_error() const { return thread_.last_error(); }

 private:
  void write(const Snapshot& snapshot) {
    const auto start = std::chrono::steady_clock::now();
    WriteReport report;
    const base::Status written =
        write_snapshot(snapshot, {.path = options_.path, .fsync = options_.fsync}, buffer_, report);
    // Keeps one chunk of capacity between saves, not the high-water mark of an unusually long output.
    if (buffer_.capacity() > 4 * k_chunk) std::string().swap(buffer_);
    if (!written) {
      thread_.failed(written.error());
      return;
    }
    thread_.succeeded();
    const std::uint64_t write_us = micros_since(start);
    metrics::core_metrics()
        .state_file_write[static_cast<std::size_t>(metrics::StateFile::retention)]
        .observe_us(static_cast<std::int64_t>(write_us));
    thread_.update_stats([&](WriterStats& stats) {
      ++stats.writes;
      stats.last_write_us = write_us;
      stats.last_format_us = report.format_us;
      stats.last_bytes = report.bytes;
    });
  }

  const WriterOptions options_;
  std::string buffer_;                                    // writer thread only
  files::StateFileThread<Snapshot, WriterStats> thread_;  // last: joins before the rest goes
};

Writer::Writer(WriterOptions options) : worker_(std::make_unique<Worker>(std::move(options))) {}
Writer::~Writer() = default;

void Writer::publish(std::shared_ptr<const Snapshot> snapshot) {
  worker_->publish(std::move(snapshot));
}

bool Writer::wait_idle(std::chrono::milliseconds timeout) {
  return worker_->wait_idle(timeout);
}

WriterStats Writer::stats() const {
  return worker_->stats();
}

std::string Writer::last_error() const {
  return worker_->last_error();
}

}  // namespace vedette::retention
