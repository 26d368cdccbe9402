#include "engine/reload.hpp"

#include "base/check.hpp"
#include "files/object_cache.hpp"
#include "loop/thread_name.hpp"
#include "retention/writer.hpp"

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

std::string write_object_cache(const config::Configuration& configuration, Time now) {
  const config::MainConfig& main = configuration.main;
  const files::ObjectCacheResult r = files::write_object_cache(
      main.object_cache_file, *configuration.model, now,
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
  p->object_cache_error = write_object_cache(p->configuration, request.now);
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

}  // namespace vedette::engine
