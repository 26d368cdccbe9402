#include "engine/perfdata/tsdb_output.hpp"

#include "model/model.hpp"
#include "tsdb/http_exchange.hpp"
#include "tsdb/metric_names.hpp"

#include <utility>

namespace vedette::engine {
namespace {

std::string v1_target(const config::PerfdataWriters& w) {
  std::string t = "/write?db=";
  tsdb::append_url_encoded(w.influxdb_database, t);
  auto param = [&t](std::string_view name, const std::string& value) {
    if (value.empty()) return;
    t += '&';
    t += name;
    t += '=';
    tsdb::append_url_encoded(value, t);
  };
  param("rp", w.influxdb_retention_policy);
  param("u", w.influxdb_username);
  param("p", w.influxdb_password);
  t += "&precision=s";
  return t;
}

std::string v2_target(const config::PerfdataWriters& w) {
  std::string t = "/api/v2/write?org=";
  tsdb::append_url_encoded(w.influxdb_org, t);
  t += "&bucket=";
  tsdb::append_url_encoded(w.influxdb_bucket, t);
  t += "&precision=s";
  return t;
}

tsdb::WriterOptions writer_options(const config::PerfdataWriters& w, const config::WriterEndpoint& at,
                                   tsdb::Protocol protocol, std::function<void(std::string)> on_event) {
  tsdb::WriterOptions o;
  o.name = protocol == tsdb::Protocol::graphite ? "graphite" : "influxdb";
  o.protocol = protocol;
  o.host = at.host;
  o.port = at.port;
  o.lines = {.thresholds = w.send_thresholds, .metadata = w.send_metadata};
  o.max_queued_bytes = w.buffer_size;
  o.flush_interval = std::chrono::milliseconds(w.flush_interval_ms);
  o.timeout = std::chrono::seconds(w.timeout_s);
  o.on_event = std::move(on_event);
  if (protocol == tsdb::Protocol::influxdb) {
    o.http_target = w.influxdb_v2() ? v2_target(w) : v1_target(w);
    if (w.influxdb_v2()) o.http_headers = "Authorization: Token " + w.influxdb_token + "\r\n";
  }
  return o;
}

}  // namespace

NameTemplate::NameTemplate(std::string_view text) {
  while (!text.empty()) {
    const std::size_t open = text.find('$');
    const std::size_t close = open == std::string_view::npos ? open : text.find('$', open + 1);
    if (close == std::string_view::npos) {
      parts_.push_back({std::string(text), false});
      return;
    }
    if (open > 0) parts_.push_back({std::string(text.substr(0, open)), false});
    const std::string_view name = text.substr(open + 1, close - open - 1);
    const bool command_name = name.starts_with("HOSTCHECKCOMMAND") || name.starts_with("SERVICECHECKCOMMAND");
    parts_.push_back({std::string(text.substr(open, close + 1 - open)), true, command_name});
    text.remove_prefix(close + 1);
  }
}

void NameTemplate::expand(const MacroContext& ctx, void (*escape)(std::string_view, std::string&),
                          std::string& out) const {
  thread_local std::string value;
  for (const Part& part : parts_) {
    if (!part.macro) {
      out += part.text;
      continue;
    }
    value.clear();
    process_macros(part.text, ctx, k_macro_plain, value);
    std::string_view v = value;
    if (part.command_name) v = v.substr(0, v.find('!'));
    if (escape == nullptr) {
      out += v;
    } else {
      escape(v, out);
    }
  }
}

TsdbOutput::TsdbOutput(const config::MainConfig& main, std::function<void(std::string)> on_event)
    : send_metadata_(main.perfdata_writers.send_metadata) {
  const config::PerfdataWriters& w = main.perfdata_writers;
  if (w.graphite.is_set()) {
    graphite_host_ = NameTemplate(w.graphite_host_template);
    graphite_service_ = NameTemplate(w.graphite_service_template);
    graphite_ =
        std::make_unique<tsdb::Writer>(writer_options(w, w.graphite, tsdb::Protocol::graphite, on_event));
  }
  if (w.influxdb.is_set()) {
    influx_host_ = NameTemplate(w.influxdb_host_measurement_template);
    influx_service_ = NameTemplate(w.influxdb_service_measurement_template);
    influxdb_ =
        std::make_unique<tsdb::Writer>(writer_options(w, w.influxdb, tsdb::Protocol::influxdb, on_event));
  }
}

void TsdbOutput::after_result(const MacroContext& ctx, const CheckState& state) {
  if (!state.enabled(state::Flag::process_perf_data)) return;
  if (state.perf_data.empty() && !send_metadata_) return;
  const bool service = ctx.service != model::no_id<model::ServiceId>();
  tsdb::Sample s{
      .name = {},
      .host = ctx.model.hosts[model::index(ctx.host)].name,
      .service = service ? ctx.model.services[model::index(ctx.service)].description : std::string_view{},
      .perf_data = state.perf_data,
      .time = static_cast<std::int64_t>(state.last_check),
      .latency = state.latency,
      .execution_time = state.execution_time,
      .state = static_cast<std::uint8_t>(state.current_state),
      .hard = state.state_type == StateType::hard,
      .current_attempt = static_cast<std::uint16_t>(state.current_attempt)};
  if (send_metadata_) {
    const model::Checkable& object =
        service ? static_cast<const model::Checkable&>(ctx.model.services[model::index(ctx.service)])
                : ctx.model.hosts[model::index(ctx.host)];
    s.max_check_attempts = static_cast<std::uint16_t>(max_check_attempts_of(object, state));
    const int host_state = ctx.all_hosts != nullptr ? (*ctx.all_hosts)[model::index(ctx.host)].current_state
                           : service                ? k_host_up
                                                    : state.current_state;
    s.reachable = service ? host_state == k_host_up : state.current_state != k_host_unreachable;
    if (ctx.downtime_depths)
      s.downtime_depth = static_cast<std::uint16_t>(service ? ctx.downtime_depths(ctx.service)
                                                            : ctx.downtime_depths(ctx.host));
    s.acknowledgement = state.problem_has_been_acknowledged ? state.acknowledgement_type : 0;
  }
  if (graphite_) {
    name_.clear();
    (service ? graphite_service_ : graphite_host_).expand(ctx, tsdb::append_graphite_component, name_);
    s.name = name_;
    graphite_->push(s);
  }
  if (influxdb_) {
    name_.clear();
    (service ? influx_service_ : influx_host_).expand(ctx, nullptr, name_);
    s.name = name_;
    influxdb_->push(s);
  }
  pending_ = true;
}

std::vector<std::string> TsdbOutput::flush(loop::MonoTime now) {
  std::vector<std::string> lines;
  if (!pending_) return lines;
  pending_ = false;
  for (tsdb::Writer* w : {graphite_.get(), influxdb_.get()}) {
    if (w == nullptr) continue;
    if (std::string line = w->flush(now); !line.empty()) lines.push_back(std::move(line));
    pending_ = pending_ || w->has_pending();
  }
  return lines;
}

loop::Duration TsdbOutput::flush_interval() const {
  const tsdb::Writer* w = graphite_ ? graphite_.get() : influxdb_.get();
  return w == nullptr ? loop::Duration::zero() : loop::Duration(w->options().flush_interval);
}

}  // namespace vedette::engine
