#include "engine/checks/distribution.hpp"

#include "engine/perfdata/perfdata.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace vedette::engine {

namespace {

bool safe_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
         c == '.' || c == '/' || c == ':' || c == ',' || c == '+' || c == '@' || c == '%';
}

// Single quotes keep every byte as it is in runcmd and in a shell; a quote inside is closed, escaped and
// reopened.
void append_quoted(std::string& out, std::string_view word) {
  if (!word.empty() && std::all_of(word.begin(), word.end(), safe_word_char)) {
    out += word;
    return;
  }
  out += '\'';
  for (char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  out += '\'';
}

// The link's settings from the options: what needs a new link when it changes.
gearman::LinkOptions link_options(const gearman::Options& o) {
  gearman::LinkOptions out;
  out.servers = o.servers;
  out.codec =
      o.encryption ? gearman::Codec::encrypted(o.key, o.accept_clear_results) : gearman::Codec::clear();
  out.result_queue = o.result_workers > 0 ? o.result_queue : std::string();
  out.poll_results = true;
  out.unique_check_jobs = o.use_uniq_jobs;
  out.io_timeout = std::chrono::milliseconds(std::max(100, o.gearman_connection_timeout_ms));
  return out;
}

bool same_link(const gearman::Options& a, const gearman::Options& b) {
  return a.servers == b.servers && a.encryption == b.encryption && a.key == b.key &&
         a.accept_clear_results == b.accept_clear_results && a.result_queue == b.result_queue &&
         a.result_workers == b.result_workers &&
         a.gearman_connection_timeout_ms == b.gearman_connection_timeout_ms &&
         a.use_uniq_jobs == b.use_uniq_jobs;
}

}  // namespace

bool is_mod_gearman_module(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  const std::string_view file = slash == std::string_view::npos ? path : path.substr(slash + 1);
  return file.starts_with("mod_gearman") && (file.ends_with(".o") || file.ends_with(".so"));
}

std::optional<gearman::Options> distribution_options(const config::MainConfig& main,
                                                     gearman::OptionMessages& messages) {
  gearman::Options options;
  bool configured = false;
  for (const config::MainConfig::BrokerModule& module : main.broker_modules) {
    if (!is_mod_gearman_module(module.path)) continue;
    configured = true;
    gearman::parse_option_args(options, module.args, messages,
                               fmt::format("{}:{}: broker_module", main.main_config_file, module.at.line));
  }
  if (!main.gearman_options.empty()) {
    configured = true;
    gearman::parse_option_args(options, main.gearman_options, messages,
                               fmt::format("{}: gearman_options", main.main_config_file));
  }
  if (!configured) return std::nullopt;
  gearman::finish_options(options, messages, gearman::Side::core);
  return options;
}

std::string remote_command_line(const ExpandedCommand& command) {
  if (command.shell) return command.argv.empty() ? std::string() : command.argv.front();
  std::string out;
  for (const auto& [name, value] : command.env) {
    out += name;
    out += '=';
    append_quoted(out, value);
    out += ' ';
  }
  for (const std::string& word : command.argv) {
    append_quoted(out, word);
    out += ' ';
  }
  if (!out.empty()) out.pop_back();
  return out;
}

exec::CheckResult remote_check_result(gearman::IncomingResult& in) {
  gearman::Result& res = in.result;
  exec::CheckResult r;
  r.kind = res.service_description.empty() ? exec::CheckKind::host : exec::CheckKind::service;
  r.outcome = res.early_timeout ? exec::Outcome::timed_out
              : res.exited_ok   ? exec::Outcome::exited
                                : exec::Outcome::spawn_failed;
  r.exit_code = res.return_code;
  r.output = std::move(res.output);
  r.start_us = res.start_time_us != 0 ? res.start_time_us : in.received_us;
  r.end_us = res.finish_time_us != 0 ? res.finish_time_us : in.received_us;
  return r;
}

Distributor::Distributor(gearman::Options options, const model::Model& model) : options_(std::move(options)) {
  route(model);
  prepare_templates();
  out_.assign(check_queue_.size(), 0);
  start_link();
}

void Distributor::prepare_templates() {
  host_perfdata_template_ = prepare_perfdata_template(options_.host_perfdata_template);
  service_perfdata_template_ = prepare_perfdata_template(options_.service_perfdata_template);
}

void Distributor::send_perfdata(const MacroContext& ctx, const CheckState& state, std::string_view host,
                                std::string_view service) {
  // handle_perfdata skips results without performance data whatever the template says.
  if (state.perf_data.empty()) return;
  if (!state.enabled(state::Flag::process_perf_data) && !options_.perfdata_send_all) return;
  perfdata_line_.clear();
  append_perfdata_line(service.empty() ? host_perfdata_template_ : service_perfdata_template_, ctx,
                       perfdata_line_);
  for (const std::string& queue : options_.perfdata_queues) {
    gearman::Submission s;
    s.queue = queue;
    // make_uniq("%s-%s-%s", queue, host, service): the same id in two queues would overwrite each other.
    if (options_.perfdata_overwrite)
      s.unique = gearman::unique_key(fmt::format("{}-{}", queue, host), service);
    s.text = perfdata_line_;
    (void)link_->submit(s);  // a full queue drops it, as a failed add_job_to_queue does
  }
}

Distributor::~Distributor() = default;

std::string Distributor::describe() const {
  std::vector<std::string> what;
  if (options_.hosts && options_.do_hostchecks) what.emplace_back("host checks");
  if (options_.services) what.emplace_back("service checks");
  if (options_.eventhandlers) what.emplace_back("event handlers");
  if (options_.notifications) what.emplace_back("notifications");
  for (const std::string& g : options_.hostgroups) what.push_back("hostgroup_" + g);
  for (const std::string& g : options_.servicegroups) what.push_back("servicegroup_" + g);
  if (!options_.queue_custom_variable.empty()) what.push_back("_" + options_.queue_custom_variable);
  return fmt::format("gearman: distributing {} through gearmand {}, results from queue '{}' ({})",
                     what.empty() ? std::string("nothing") : fmt::format("{}", fmt::join(what, ", ")),
                     gearman::describe(options_.servers), options_.result_queue,
                     options_.encryption ? "encrypted" : "not encrypted");
}

void Distributor::route(const model::Model& model) {
  queue_names_.assign(1, std::string());
  const CheckIds ids{model.services.size()};
  const std::size_t checks = ids.count(model.hosts.size());
  check_queue_.assign(checks, 0);
  handler_queue_.assign(checks, 0);
  notification_queue_.assign(checks, 0);
  auto index_of = [&](const std::optional<std::string>& q) -> std::uint16_t {
    if (!q) return 0;
    const auto it = std::find(queue_names_.begin(), queue_names_.end(), *q);
    if (it != queue_names_.end()) return static_cast<std::uint16_t>(it - queue_names_.begin());
    queue_names_.push_back(*q);
    return static_cast<std::uint16_t>(queue_names_.size() - 1);
  };
  std::vector<std::string_view> host_groups, service_groups;
  auto fill_host = [&](const model::Host& h) {
    host_groups.clear();
    for (model::HostgroupId g : h.hostgroups) host_groups.push_back(model.hostgroups[model::index(g)].name);
  };
  auto set = [&](CheckId check, const gearman::Target& target, bool service) {
    check_queue_[check] = index_of(gearman::select_queue(
        options_, service ? gearman::Work::service_check : gearman::Work::host_check, target));
    handler_queue_[check] = index_of(gearman::select_queue(options_, gearman::Work::eventhandler, target));
    notification_queue_[check] =
        index_of(gearman::select_queue(options_, gearman::Work::notification, target));
  };
  for (std::uint32_t s = 0; s < model.services.size(); ++s) {
    const model::Service& svc = model.services[s];
    const model::Host& host = model.host(svc.host);
    fill_host(host);
    service_groups.clear();
    for (model::ServicegroupId g : svc.servicegroups)
      service_groups.push_back(model.servicegroups[model::index(g)].name);
    set(ids.of(model::ServiceId{s}),
        gearman::Target{.is_service = true,
                        .host_groups = host_groups,
                        .service_groups = service_groups,
                        .host_variables = host.custom_variables,
                        .service_variables = svc.custom_variables},
        true);
  }
  service_groups.clear();
  for (std::uint32_t h = 0; h < model.hosts.size(); ++h) {
    fill_host(model.hosts[h]);
    set(ids.of(model::HostId{h}),
        gearman::Target{.is_service = false,
                        .host_groups = host_groups,
                        .service_groups = {},
                        .host_variables = model.hosts[h].custom_variables,
                        .service_variables = {}},
        false);
  }
}

void Distributor::start_link() {
  gearman::LinkOptions o = link_options(options_);
  o.on_event = [lines = log_lines_](const gearman::LinkEvent& event) {
    std::lock_guard lock(lines->mutex);
    lines->lines.push_back(event.message);
  };
  link_ = std::make_unique<gearman::GearmanLink>(std::move(o));
}

const std::string* Distributor::queue(gearman::Work work, CheckId check) const {
  if (!check_queue_.contains(check)) return nullptr;
  std::uint16_t q = 0;
  switch (work) {
    case gearman::Work::host_check:
    case gearman::Work::service_check:
      q = check_queue_[check];
      break;
    case gearman::Work::eventhandler:
      q = handler_queue_[check];
      break;
    case gearman::Work::notification:
      q = notification_queue_[check];
      break;
  }
  return q == 0 ? nullptr : &queue_names_[q];
}

bool Distributor::send(gearman::Submission&& submission) {
  return link_->submit(submission);
}

void Distributor::expect(CheckId check, std::uint32_t generation, loop::MonoTime deadline) {
  if (!out_.contains(check)) return;
  if (out_[check] == 0) ++checks_out_;
  out_[check] = generation;
  deadlines_.push(Out{deadline, check, generation});
}

bool Distributor::take(CheckId check) {
  if (!out_.contains(check) || out_[check] == 0) return false;
  out_[check] = 0;
  --checks_out_;
  return true;
}

std::optional<loop::MonoTime> Distributor::next_deadline() {
  while (!deadlines_.empty() && out_[deadlines_.top().check] != deadlines_.top().generation) deadlines_.pop();
  if (deadlines_.empty()) return std::nullopt;
  return deadlines_.top().deadline;
}

std::vector<Orphan> Distributor::orphans(loop::MonoTime now) {
  std::vector<Orphan> out;
  while (!deadlines_.empty() && deadlines_.top().deadline <= now) {
    const Out o = deadlines_.top();
    deadlines_.pop();
    if (out_[o.check] != o.generation) continue;  // its result came, or a newer job replaced it
    out_[o.check] = 0;
    --checks_out_;
    out.push_back(Orphan{o.check, queue_names_[check_queue_[o.check]]});
  }
  return out;
}

std::vector<std::string> Distributor::take_log_lines() {
  std::lock_guard lock(log_lines_->mutex);
  return std::exchange(log_lines_->lines, {});
}

bool Distributor::reconfigure(gearman::Options options, const model::Model& model,
                              const ByCheck<CheckId>& new_of_old) {
  const bool relink = !same_link(options_, options);
  options_ = std::move(options);
  route(model);
  prepare_templates();
  ByCheck<std::uint32_t> out(check_queue_.size(), 0);
  std::priority_queue<Out, std::vector<Out>, std::greater<>> deadlines;
  for (; !deadlines_.empty(); deadlines_.pop()) {
    const Out o = deadlines_.top();
    if (!new_of_old.contains(o.check) || out_[o.check] != o.generation) continue;
    const CheckId c = new_of_old[o.check];
    if (!out.contains(c)) continue;
    out[c] = o.generation;
    deadlines.push(Out{o.deadline, c, o.generation});
  }
  out_ = std::move(out);
  checks_out_ = static_cast<std::size_t>(
      std::count_if(out_.begin(), out_.end(), [](std::uint32_t g) { return g != 0; }));
  deadlines_ = std::move(deadlines);
  if (relink) {
    link_.reset();
    start_link();
  }
  return relink;
}

}  // namespace vedette::engine
