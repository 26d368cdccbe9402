#include "engine/perfdata_outputs.hpp"

#include "base/check.hpp"
#include "engine/books/downtime_book.hpp"
#include "engine/checks/check_runner.hpp"
#include "engine/checks/distribution.hpp"

#include <chrono>
#include <utility>

namespace vedette::engine {

PerfdataOutputs::PerfdataOutputs(World& world, CheckRunner& runner) : w_(world), runner_(runner) {
  host_timer_ = w_.loop.add_timer(*this);
  service_timer_ = w_.loop.add_timer(*this);
  tsdb_timer_ = w_.loop.add_timer(*this);
}

PerfdataOutputs::~PerfdataOutputs() = default;

void PerfdataOutputs::setup() {
  host_.reset();
  service_.reset();
  w_.loop.disarm_timer(host_timer_);
  w_.loop.disarm_timer(service_timer_);
  host_due_ = service_due_ = {};
  std::vector<std::string> warnings;
  auto on_event = [this](const files::PerfdataEvent& e) { events_.add(e.message); };
  retire_tsdb();
  tsdb_ = std::make_unique<TsdbOutput>(w_.main, [this](std::string line) { events_.add(std::move(line)); });
  if (!tsdb_->has_writers()) tsdb_.reset();
  host_ = std::make_unique<PerfdataWriter>(*w_.model, w_.main, PerfdataObject::host, on_event, warnings);
  service_ =
      std::make_unique<PerfdataWriter>(*w_.model, w_.main, PerfdataObject::service, on_event, warnings);
  for (const std::string& w : warnings) w_.log(w);
  if (host_->processing_interval() > 0)
    w_.arm_periodic(host_timer_, host_due_, std::chrono::seconds(host_->processing_interval()));
  if (service_->processing_interval() > 0)
    w_.arm_periodic(service_timer_, service_due_, std::chrono::seconds(service_->processing_interval()));
}

void PerfdataOutputs::after_result(CheckId check, Time now) {
  const MacroContext ctx = w_.object_macros(check, now);
  const bool service = w_.is_service(check);
  if (service) {
    service_->after_result(ctx, w_.services[model::index(check)], runner_);
  } else {
    host_->after_result(ctx, w_.hosts[model::index(ctx.host)], runner_);
  }
  if (tsdb_ != nullptr) tsdb_->after_result(ctx, w_.state_of(check));
  if (Distributor* d = runner_.distributor(); d != nullptr && d->distributes_perfdata())
    d->send_perfdata(
        ctx, w_.state_of(check), w_.model->hosts[model::index(ctx.host)].name,
        service ? std::string_view(w_.model->services[model::index(check)].description) : std::string_view());
}

void PerfdataOutputs::flush() {
  if (host_) host_->flush();
  if (service_) service_->flush();
  if (tsdb_ != nullptr) flush_tsdb();
  if (events_.pending()) report_events();
}

void PerfdataOutputs::flush_tsdb() {
  for (const std::string& line : tsdb_->flush(w_.loop.now())) w_.log(line);
  if (tsdb_->has_pending() && !w_.loop.is_armed(tsdb_timer_))
    w_.loop.arm_timer(tsdb_timer_, w_.loop.now() + tsdb_->flush_interval());
}

// A slow backend holds an old writer up to its stop grace: on a thread of its own. Shutdown joins them.
void PerfdataOutputs::retire_tsdb() {
  std::erase_if(retiring_tsdb_,
                [](const RetiringTsdb& r) { return r.done->load(std::memory_order_acquire); });
  if (tsdb_ == nullptr) return;
  auto done = std::make_shared<std::atomic<bool>>(false);
  retiring_tsdb_.push_back({base::start_thread<std::jthread>([old = std::move(tsdb_), done]() mutable {
                              old.reset();
                              done->store(true, std::memory_order_release);
                            }),
                            done});
}

void PerfdataOutputs::report_events() {
  events_.drain([this](const std::string& m) { w_.log(m); });
}

void PerfdataOutputs::shutdown() {
  report_events();
  host_.reset();
  service_.reset();
  tsdb_.reset();
  retiring_tsdb_.clear();  // joins them
  report_events();
}

void PerfdataOutputs::on_timer(loop::TimerId id) {
  if (id == tsdb_timer_) return;  // flush() hands the samples over in this iteration
  const bool hosts = id == host_timer_;
  if (!hosts && id != service_timer_) return;
  PerfdataWriter& out = hosts ? *host_ : *service_;
  w_.arm_periodic(id, hosts ? host_due_ : service_due_, std::chrono::seconds(out.processing_interval()));
  out.process(MacroContext{.model = *w_.model,
                           .main = w_.main,
                           .now = w_.now_epoch(),
                           .all_hosts = &w_.hosts.all(),
                           .all_services = &w_.services.all(),
                           .program_start = w_.program_start,
                           .downtime_depths = DowntimeDepths(*w_.downtimes)});
}

}  // namespace vedette::engine
