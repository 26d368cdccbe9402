#include "engine/world/world.hpp"

#include "engine/books/comment_book.hpp"
#include "engine/books/downtime_book.hpp"
#include "engine/macros/macros.hpp"
#include "engine/notify/notifier.hpp"
#include "engine/world/reload.hpp"

#include <fmt/format.h>

#include <unistd.h>

namespace vedette::engine {

World::World(config::Configuration&& configuration, loop::Clock& clock_in,
             const files::LogFileOptions& log_options, std::uint64_t random_seed)
    : clock(clock_in),
      loop(clock_in),
      cfg(std::move(configuration)),
      model_owner(std::move(cfg.model)),
      model(model_owner.get()),
      main(cfg.main),
      log_file(log_options),
      comments(std::make_unique<CommentBook>()),
      downtimes(std::make_unique<DowntimeBook>()),
      evaluator(periods, &day_cache),
      check_sources(static_cast<int>(::getpid())) {
  apply_main_settings();
  initial_states(*model, hosts.vector(), services.vector());
  contacts = state::initial_contact_states(*model);
  build_periods();
  rng.seed(random_seed != 0 ? random_seed
                            : static_cast<std::uint64_t>(clock.now().time_since_epoch().count()));
}

World::~World() = default;

void World::mark_all_updated() {
  const state::Timeval now = to_timeval(clock.wall_now());
  for (HostState& h : hosts.vector()) h.last_update = now;
  for (ServiceState& s : services.vector()) s.last_update = now;
}

void World::log(std::string_view text) {
  ++events.log_messages;
  log_file.write(now_epoch(), text);
}

void World::log_states(std::string_view kind) {
  for (std::size_t n = 0; n < hosts.size(); ++n) {
    const std::size_t h = model->has_by_name() ? model::index(model->by_name.hosts[n]) : n;
    log(fmt::format("{} HOST STATE: {};{};{};{};{}", kind, model->hosts[h].name,
                    host_state_name(hosts[h].current_state), state_type_name(hosts[h].state_type),
                    hosts[h].current_attempt, hosts[h].plugin_output));
  }
  for (std::size_t n = 0; n < services.size(); ++n) {
    const std::size_t s = model->has_by_name() ? model::index(model->by_name.services[n]) : n;
    log(fmt::format("{} SERVICE STATE: {};{};{};{};{};{}", kind, model->services[s].host_name,
                    model->services[s].description, service_state_name(services[s].current_state),
                    state_type_name(services[s].state_type), services[s].current_attempt,
                    services[s].plugin_output));
  }
}

bool World::in_period(model::TimeperiodId period, Time now) const {
  if (!model::is_set(period)) return true;
  return evaluator.is_time_valid(timeperiod::PeriodIndex{model::index(period)},
                                 static_cast<std::time_t>(now));
}

model::TimeperiodId World::check_period_of(const model::Checkable& cfg_of, const CheckState& st) const {
  if (st.overrides == nullptr || !st.overrides->check_period) return cfg_of.check_period;
  const auto it = model->timeperiod_by_name.find(*st.overrides->check_period);
  return it != model->timeperiod_by_name.end() ? it->second : cfg_of.check_period;
}

MacroContext World::object_macros(CheckId check, Time now) const {
  MacroContext ctx{.model = *model,
                   .main = main,
                   .host = owner_host(check),
                   .now = now,
                   .all_hosts = &hosts.all(),
                   .all_services = &services.all(),
                   .timeperiods = &evaluator,
                   .program_start = program_start,
                   .downtime_depths = DowntimeDepths(*downtimes)};
  if (is_service(check)) ctx.service = service_of(check);
  return ctx;
}

NotifierWorld World::notifier_world(Time now) {
  return {.model = *model,
          .main = main,
          .hosts = hosts,
          .services = services,
          .contacts = contacts,
          .contacts_changed = on_contacts_changed_,
          .downtimes = *downtimes,
          .timeperiods = evaluator,
          .now = now,
          .program_start = program_start};
}

std::shared_ptr<const std::vector<state::ContactState>> World::contacts_snapshot() const {
  if (contacts_snapshot_ == nullptr)
    contacts_snapshot_ = std::make_shared<const std::vector<state::ContactState>>(contacts);
  return contacts_snapshot_;
}

void World::build_periods() {
  periods.assign(model->timeperiods.size(), timeperiod::Period{});
  for (std::size_t i = 0; i < periods.size(); ++i) {
    periods[i].rules = &model->timeperiods[i].rules;
    for (model::TimeperiodId e : model->timeperiods[i].exclusions)
      periods[i].exclusions.push_back(timeperiod::PeriodIndex{model::index(e)});
  }
  day_cache = timeperiod::DayCache{};
  evaluator = timeperiod::Evaluator(periods, &day_cache);
}

void World::apply_main_settings() {
  settings.service_check_timeout_state = main.service_check_timeout_state;
  settings.log_service_retries = main.log_service_retries;
  settings.log_host_retries = main.log_host_retries;
  settings.log_passive_checks = main.log_passive_checks;
  settings.passive_host_checks_are_soft = main.passive_host_checks_are_soft;
  settings.translate_passive_host_checks = main.translate_passive_host_checks;
  settings.use_aggressive_host_checking = main.use_aggressive_host_checking;
  settings.execute_host_checks = main.execute_host_checks;
  settings.cached_host_check_horizon = static_cast<Time>(main.cached_host_check_horizon);
}

}  // namespace vedette::engine
