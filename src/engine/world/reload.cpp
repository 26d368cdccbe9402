#include "engine/world/reload.hpp"

#include "base/check.hpp"
#include "files/object_cache.hpp"
#include "loop/thread_name.hpp"
#include "retention/writer.hpp"

#include <algorithm>
#include <malloc.h>
#include <utility>

namespace vedette::engine {

namespace {

std::chrono::microseconds since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
}

}  // namespace

void initial_states(const model::Model& model, std::vector<HostState>& hosts,
                    std::vector<ServiceState>& services) {
  hosts.assign(model.hosts.size(), HostState{});
  services.assign(model.services.size(), ServiceState{});
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    hosts[i].current_state = model.hosts[i].initial_state;
    hosts[i].last_state = hosts[i].last_hard_state = hosts[i].current_state;
    hosts[i].flags = state::configured_flags(model.hosts[i]);
  }
  for (std::size_t i = 0; i < services.size(); ++i) {
    services[i].current_state = model.services[i].initial_state;
    services[i].last_state = services[i].last_hard_state = services[i].current_state;
    services[i].flags = state::configured_flags(model.services[i]);
  }
}

std::string write_object_cache(const config::MainConfig& main, const model::Model& model, Time now,
                               const std::string* path) {
  const files::ObjectCacheResult r = files::write_object_cache(
      path != nullptr ? *path : main.object_cache_file, model, now,
      main.object_cache_format == config::ObjectCacheFormat::nagios ? files::ObjectCacheFormat::nagios
                                                                    : files::ObjectCacheFormat::naemon);
  return r.error;
}

std::unique_ptr<PreparedConfig> prepare_config(const ReloadRequest& request) {
  auto p = std::make_unique<PreparedConfig>();
  const auto start = std::chrono::steady_clock::now();
  p->configuration = config::load_configuration(request.config_path, p->files, p->diags);
  p->load_time = since(start);
  if (!p->ok()) return p;
  const auto prepare_start = std::chrono::steady_clock::now();
  const model::Model& model = *p->configuration.model;
  p->object_cache_error = write_object_cache(p->configuration.main, model, request.now);
  initial_states(model, p->hosts, p->services);
  p->contacts = state::initial_contact_states(model);
  retention::TextApplier applier({model, p->configuration.main, p->hosts, p->services, p->contacts},
                                 request.now);
  if (request.state)
    retention::format_retention(*request.state, [&](std::string_view blocks) { applier.feed(blocks); });
  p->retained = std::move(applier.finish().applied);
  if (request.state) {
    const files::StatusSnapshot& s = *request.state;
    static const std::vector<state::Comment> k_no_comments;
    static const std::vector<state::Downtime> k_no_downtimes;
    p->books = load_books(model, s.comments ? *s.comments : k_no_comments, s.program.counters.next_comment_id,
                          s.downtimes ? *s.downtimes : k_no_downtimes, s.program.counters.next_downtime_id,
                          request.now, p->configuration.main.date_format);
    // Their snapshots too: status.dat is written right after the swap, and a book builds its first one in
    // O(n) (~100 ms at 300k downtimes), which belongs on this thread, not the core's.
    (void)p->books.comments->snapshot();
    (void)p->books.downtimes->snapshot();
  }
  p->prepare_time = since(prepare_start);
  return p;
}

Reloader::~Reloader() {
  if (thread_.joinable()) thread_.join();
  if (disposer_.joinable()) disposer_.join();
}

void Reloader::dispose(std::shared_ptr<void> garbage) {
  if (disposer_.joinable()) disposer_.join();
  disposer_ = base::start_thread([garbage = std::move(garbage)]() mutable {
    loop::set_current_thread_name("reload-free");
    garbage.reset();
    ::malloc_trim(0);
  });
}

void Reloader::start(ReloadRequest request) {
  thread_ = base::start_thread([this, request = std::move(request)] {
    loop::set_current_thread_name("reload");
    std::unique_ptr<PreparedConfig> p = prepare_config(request);
    {
      std::lock_guard lock(mutex_);
      result_ = std::move(p);
    }
    done_.signal();
  });
}

std::unique_ptr<PreparedConfig> Reloader::take() {
  done_.drain();
  std::unique_ptr<PreparedConfig> p;
  {
    std::lock_guard lock(mutex_);
    p = std::move(result_);
  }
  if (p && thread_.joinable()) thread_.join();
  return p;
}

CheckMapping map_checks(const model::Model& old, const model::Model& next) {
  const CheckIds old_ids{old.services.size()};
  const CheckIds new_ids{next.services.size()};
  CheckMapping m{.old_of_new = ByCheck<CheckId>(new_ids.count(next.hosts.size()), k_no_check),
                 .new_of_old = ByCheck<CheckId>(old_ids.count(old.hosts.size()), k_no_check)};
  for (std::uint32_t s = 0; s < next.services.size(); ++s) {
    const model::ServiceId o = old.find_service(next.services[s].host_name, next.services[s].description);
    if (model::is_set(o)) m.old_of_new[new_ids.of(model::ServiceId{s})] = old_ids.of(o);
  }
  for (std::uint32_t h = 0; h < next.hosts.size(); ++h) {
    if (auto it = old.host_by_name.find(next.hosts[h].name); it != old.host_by_name.end())
      m.old_of_new[new_ids.of(model::HostId{h})] = old_ids.of(it->second);
  }
  for (std::uint32_t i = 0; i < m.old_of_new.size(); ++i) {
    if (m.old_of_new[CheckId{i}] == k_no_check) continue;
    m.new_of_old[m.old_of_new[CheckId{i}]] = CheckId{i};
    ++m.kept;
  }
  return m;
}

void keep_current_state(PreparedConfig& p, const CheckMapping& mapping, const model::Model& old,
                        const model::Model& next, std::vector<HostState>& hosts,
                        std::vector<ServiceState>& services,
                        const std::vector<state::ContactState>& contacts) {
  const CheckIds old_ids{old.services.size()};
  const CheckIds new_ids{next.services.size()};
  auto keep = [&]<typename State>(State& prepared, State&& current, const model::Checkable& cfg) {
    const unsigned long modified = prepared.modified_attributes;
    const std::uint8_t flags = prepared.flags;
    const state::Timeval last_update = prepared.last_update;
    std::shared_ptr<const state::Overrides> overrides = std::move(prepared.overrides);
    prepared = std::move(current);
    prepared.modified_attributes = modified;
    prepared.flags = flags;
    prepared.last_update = last_update;
    prepared.overrides = std::move(overrides);
    const int max_attempts = std::max(1, state::max_check_attempts_of(cfg, prepared));
    if (prepared.current_state != 0 && prepared.state_type == StateType::hard)
      prepared.current_attempt = max_attempts;
    prepared.current_attempt = std::min(prepared.current_attempt, max_attempts);
  };
  for (std::uint32_t s = 0; s < next.services.size(); ++s) {
    const CheckId o = mapping.old_of_new[new_ids.of(model::ServiceId{s})];
    if (o == k_no_check) continue;
    keep(p.services[s], std::move(services[model::index(old_ids.service(o))]), next.services[s]);
  }
  for (std::uint32_t h = 0; h < next.hosts.size(); ++h) {
    const CheckId o = mapping.old_of_new[new_ids.of(model::HostId{h})];
    if (o == k_no_check) continue;
    keep(p.hosts[h], std::move(hosts[model::index(old_ids.host(o))]), next.hosts[h]);
  }
  for (std::size_t c = 0; c < p.contacts.size(); ++c) {
    const auto it = old.contact_by_name.find(next.contacts[c].name);
    if (it == old.contact_by_name.end()) continue;
    const state::ContactState& now = contacts[model::index(it->second)];
    p.contacts[c].last_host_notification = now.last_host_notification;
    p.contacts[c].last_service_notification = now.last_service_notification;
  }
}

}  // namespace vedette::engine
