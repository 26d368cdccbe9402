#include "engine/status_snapshot.hpp"

#include "engine/books/downtime_book.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>

namespace vedette::engine {
namespace {

void fill_program(files::StatusProgram& p, const config::MainConfig& main, const ProgramStatus& program) {
  p.created = program.now;
  p.version.assign(program.version);
  p.counters = program.counters;
  p.pid = program.pid;
  p.daemon_mode = program.daemon_mode;
  p.program_start = program.program_start;
  p.last_log_rotation = program.last_log_rotation;
  p.enable_notifications = main.enable_notifications;
  p.active_service_checks_enabled = main.execute_service_checks;
  p.passive_service_checks_enabled = main.accept_passive_service_checks;
  p.active_host_checks_enabled = main.execute_host_checks;
  p.passive_host_checks_enabled = main.accept_passive_host_checks;
  p.enable_event_handlers = main.enable_event_handlers;
  p.obsess_over_services = main.obsess_over_services;
  p.obsess_over_hosts = main.obsess_over_hosts;
  p.check_service_freshness = main.check_service_freshness;
  p.check_host_freshness = main.check_host_freshness;
  p.enable_flap_detection = main.enable_flap_detection;
  p.process_performance_data = main.process_performance_data;
  p.global_host_event_handler = main.global_host_event_handler;
  p.global_service_event_handler = main.global_service_event_handler;
  p.global_host_notification_handler = main.global_host_notification_handler;
  p.global_service_notification_handler = main.global_service_notification_handler;
  p.masks = {.host = main.retained_host_attribute_mask,
             .service = main.retained_service_attribute_mask,
             .process_host = main.retained_process_host_attribute_mask,
             .process_service = main.retained_process_service_attribute_mask,
             .contact_host = main.retained_contact_host_attribute_mask,
             .contact_service = main.retained_contact_service_attribute_mask};
  p.check_stats = program.check_stats;
  p.events = program.events;
}

template <typename State>
void fill_state(files::StatusSnapshot& snap, files::StatusState& o, const State& s) {
  o.text_offset = snap.text.append(s.plugin_output);
  snap.text.append(s.long_plugin_output);
  snap.text.append(s.perf_data);
  o.output_size = static_cast<std::uint32_t>(s.plugin_output.size());
  o.long_output_size = static_cast<std::uint32_t>(s.long_plugin_output.size());
  o.perf_data_size = static_cast<std::uint32_t>(s.perf_data.size());
  o.last_check = s.last_check;
  o.next_check = s.next_check;
  o.last_state_change = s.last_state_change;
  o.last_hard_state_change = s.last_hard_state_change;
  o.last_update = s.last_update;
  o.execution_time = s.execution_time;
  o.latency = s.latency;
  o.current_attempt = s.current_attempt;
  o.current_state = static_cast<std::uint8_t>(s.current_state);
  o.last_hard_state = static_cast<std::uint8_t>(s.last_hard_state);
  o.check_type = static_cast<std::uint8_t>(s.check_type);
  o.check_options = s.check_options;
  o.state_type = static_cast<std::uint8_t>(s.state_type);
  o.has_been_checked = s.has_been_checked;
  o.is_executing = s.is_executing;
  o.check_source = s.check_source;
  o.last_state = static_cast<std::uint8_t>(s.last_state);
  state::copy_attributes(o, s, snap.overrides);
}

// The parts of a snapshot that are the same for every object: the program, the shared lists.
void fill_shared(files::StatusSnapshot& snap, const SnapshotSource& src) {
  snap.model = &src.model;
  snap.keep_alive = src.keep_alive;
  snap.comments = src.comments;
  snap.downtimes = src.downtimes;
  snap.contacts = src.contacts;
  fill_program(snap.program, src.main, src.program);
  snap.check_sources = src.program.check_sources;
}

void fill_host(files::StatusSnapshot& snap, const SnapshotSource& src, std::size_t i) {
  const HostState& s = src.hosts[i];
  files::StatusState& o = snap.hosts[i];
  fill_state(snap, o, s);
  o.last_time = {s.last_time_up, s.last_time_down, s.last_time_unreachable, 0};
}

void fill_service(files::StatusSnapshot& snap, const SnapshotSource& src, std::size_t i) {
  const ServiceState& s = src.services[i];
  files::StatusState& o = snap.services[i];
  fill_state(snap, o, s);
  o.last_time = {s.last_time_ok, s.last_time_warning, s.last_time_unknown, s.last_time_critical};
}

// The downtime book's depths, which change apart from the objects' state. Reading every one costs little
// next to copying the objects; a snapshot entry is written only when its depth changed.
void fill_depths(files::StatusSnapshot& snap, const DowntimeBook* depths) {
  for (std::size_t i = 0; i < snap.hosts.size(); ++i) {
    const int d = depths != nullptr ? depths->depth(model::HostId{static_cast<std::uint32_t>(i)}) : 0;
    if (snap.hosts[i].scheduled_downtime_depth != d) snap.hosts[i].scheduled_downtime_depth = d;
  }
  for (std::size_t i = 0; i < snap.services.size(); ++i) {
    const int d = depths != nullptr ? depths->depth(model::ServiceId{static_cast<std::uint32_t>(i)}) : 0;
    if (snap.services[i].scheduled_downtime_depth != d) snap.services[i].scheduled_downtime_depth = d;
  }
}

// Fills `snap` whole (fresh or recycled: every field is overwritten).
void fill(files::StatusSnapshot& snap, const SnapshotSource& src) {
  fill_shared(snap, src);
  snap.overrides.clear();
  snap.text.clear();
  snap.hosts.resize(std::min(src.model.hosts.size(), src.hosts.size()));
  for (std::size_t i = 0; i < snap.hosts.size(); ++i) fill_host(snap, src, i);
  snap.services.resize(std::min(src.model.services.size(), src.services.size()));
  for (std::size_t i = 0; i < snap.services.size(); ++i) fill_service(snap, src, i);
  fill_depths(snap, src.downtime_depths);
}

// Whether two snapshots hold the same (VEDETTE_VERIFY_SNAPSHOTS): every field of every object, texts and
// overrides compared by what they say rather than where they are kept.
bool same_state(const files::StatusSnapshot& a, const files::StatusState& x, const files::StatusSnapshot& b,
                const files::StatusState& y) {
  auto texts = [](const files::StatusSnapshot& s, const files::StatusState& o) {
    return std::string(s.text_at(o.text_offset, o.output_size + o.long_output_size + o.perf_data_size));
  };
  files::StatusState x2 = x;
  files::StatusState y2 = y;
  if (texts(a, x) != texts(b, y) || a.overrides_of(x) != b.overrides_of(y)) return false;
  x2.text_offset = y2.text_offset = 0;
  x2.overrides = y2.overrides = 0;
  return std::memcmp(&x2, &y2, sizeof x2) == 0;
}

void verify(const files::StatusSnapshot& built, const SnapshotSource& src) {
  files::StatusSnapshot full;
  fill(full, src);
  auto check = [&](const std::vector<files::StatusState>& a, const std::vector<files::StatusState>& b,
                   const char* kind) {
    if (a.size() != b.size()) {
      std::fprintf(stderr, "vedette: incremental snapshot has %zu %ss, a full one %zu\n", a.size(), kind,
                   b.size());
      std::abort();
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (same_state(built, a[i], full, b[i])) continue;
      std::fprintf(stderr, "vedette: incremental snapshot differs from a full one at %s %zu\n", kind, i);
      std::abort();
    }
  };
  check(built.hosts, full.hosts, "host");
  check(built.services, full.services, "service");
}

}  // namespace

// The memory of the last snapshot released (by the writer, usually on its thread), kept for the next build,
// with what the builder needs to bring it up to date: the generations it was filled at and how much of its
// text and overrides still belongs to an object (the rest is left behind by objects copied again).
struct StatusSnapshotBuilder::Filled {
  const void* source = nullptr;  // the tables' ChangeMarks; another source means a full fill
  ChangeMarks::Generation hosts = 0, services = 0;
  std::size_t live_text = 0;
  std::size_t live_overrides = 0;
  const DowntimeBook* depths = nullptr;  // the book and its depth_version() the depths were read at
  std::uint64_t depth_version = 0;
};

struct StatusSnapshotBuilder::Spare {
  std::mutex mutex;
  std::unique_ptr<files::StatusSnapshot> snapshot;  // guarded by mutex
  Filled filled;                                    // guarded by mutex, of `snapshot`
};

StatusSnapshotBuilder::StatusSnapshotBuilder()
    : spare_(std::make_shared<Spare>()), verify_(std::getenv("VEDETTE_VERIFY_SNAPSHOTS") != nullptr) {}
StatusSnapshotBuilder::~StatusSnapshotBuilder() = default;

namespace {

std::size_t text_of(const files::StatusState& o) {
  return std::size_t{o.output_size} + o.long_output_size + o.perf_data_size;
}

// Brings a recycled snapshot up to date by copying the objects changed since it was filled; false when it
// cannot (another source, another size, every object changed, or more text left behind than in use).
bool refill(files::StatusSnapshot& snap, const SnapshotSource& src, StatusSnapshotBuilder::Filled& f) {
  if (src.host_changes == nullptr || src.service_changes == nullptr || f.source != src.host_changes)
    return false;
  if (snap.model != nullptr) return false;  // not released: never recycled
  if (snap.hosts.size() != std::min(src.model.hosts.size(), src.hosts.size()) ||
      snap.services.size() != std::min(src.model.services.size(), src.services.size()))
    return false;
  if (src.host_changes->all_since(f.hosts) || src.service_changes->all_since(f.services)) return false;
  if (snap.text.size() > 2 * f.live_text + (std::size_t{1} << 20) ||
      snap.overrides.size() > 2 * f.live_overrides + 64)
    return false;
  fill_shared(snap, src);
  // Copies again the objects of one table changed since `filled_at`, keeping count of the text and the
  // overrides still in use.
  auto refill_table = [&](std::vector<files::StatusState>& table, const ChangeMarks& changes,
                          ChangeMarks::Generation filled_at, auto fill_one) {
    for (std::size_t i = 0; i < table.size(); ++i) {
      if (!changes.since(i, filled_at)) continue;
      f.live_text -= text_of(table[i]);
      f.live_overrides -= table[i].overrides != 0 ? 1 : 0;
      fill_one(snap, src, i);
      f.live_text += text_of(table[i]);
      f.live_overrides += table[i].overrides != 0 ? 1 : 0;
    }
  };
  refill_table(snap.hosts, *src.host_changes, f.hosts, fill_host);
  refill_table(snap.services, *src.service_changes, f.services, fill_service);
  if (src.downtime_depths != f.depths ||
      (f.depths != nullptr && f.depths->depth_version() != f.depth_version))
    fill_depths(snap, src.downtime_depths);
  return true;
}

}  // namespace

std::shared_ptr<const files::StatusSnapshot> StatusSnapshotBuilder::build(const SnapshotSource& source) {
  std::unique_ptr<files::StatusSnapshot> snap;
  Filled filled;
  {
    std::lock_guard lock(spare_->mutex);
    snap = std::move(spare_->snapshot);
    filled = spare_->filled;
  }
  if (snap == nullptr) snap = std::make_unique<files::StatusSnapshot>();
  if (!refill(*snap, source, filled)) {
    fill(*snap, source);
    filled = Filled{.source = source.host_changes,
                    .live_text = snap->text.size(),
                    .live_overrides = snap->overrides.size()};
  }
  filled.depths = source.downtime_depths;
  filled.depth_version = source.downtime_depths != nullptr ? source.downtime_depths->depth_version() : 0;
  if (source.host_changes != nullptr && source.service_changes != nullptr) {
    filled.hosts = source.host_changes->seal();
    filled.services = source.service_changes->seal();
  }
  if (verify_) verify(*snap, source);
  // Whoever drops the last reference gives the memory back. The model and the shared lists are let go at
  // once (they may be the last references to ones replaced by a reload); the arrays, the text and the
  // overrides are kept for the next build to bring up to date.
  return std::shared_ptr<const files::StatusSnapshot>(
      snap.release(), [spare = std::weak_ptr<Spare>(spare_), filled](const files::StatusSnapshot* done) {
        std::unique_ptr<files::StatusSnapshot> owned(const_cast<files::StatusSnapshot*>(done));
        owned->keep_alive.reset();
        owned->comments.reset();
        owned->downtimes.reset();
        owned->contacts.reset();
        owned->check_sources.reset();
        owned->model = nullptr;
        if (const std::shared_ptr<Spare> pool = spare.lock()) {
          std::lock_guard lock(pool->mutex);
          if (pool->snapshot == nullptr) {
            pool->snapshot = std::move(owned);
            pool->filled = filled;
          }
        }
      });
}

std::shared_ptr<const files::StatusSnapshot> make_status_snapshot(const SnapshotSource& source) {
  auto snap = std::make_shared<files::StatusSnapshot>();
  fill(*snap, source);
  return snap;
}

}  // namespace vedette::engine
