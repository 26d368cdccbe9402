#include "app/livestatus_link.hpp"

#include "livestatus/server_options.hpp"

namespace vedette::app {

LivestatusLink::LivestatusLink(engine::Core& core, commands::CommandReader& reader)
    : core_(core), reader_(reader) {}

base::Expected<std::unique_ptr<LivestatusLink>> LivestatusLink::start(engine::Core& core,
                                                                      commands::CommandReader& reader,
                                                                      std::vector<std::string>& notes) {
  std::optional<livestatus::ServerOptions> options = livestatus::server_options(core.main_config(), notes);
  if (!options) return std::unique_ptr<LivestatusLink>();
  std::unique_ptr<LivestatusLink> link(new LivestatusLink(core, reader));
  auto server = livestatus::Server::start(std::move(*options), link->channel_);
  if (!server) return base::Error{server.error()};
  link->server_ = std::move(*server);
  core.loop().watch(link->channel_.fd(), loop::Interest::read, *link);
  core.log_timeperiod_transitions();
  return link;
}

LivestatusLink::~LivestatusLink() {
  channel_.close();
  server_.reset();
  if (channel_.fd() >= 0) core_.loop().unwatch(channel_.fd());
}

void LivestatusLink::on_ready(int, loop::Interest) {
  channel_.clear_wakeup();
  if (channel_.take_log_rotation()) core_.reopen_log();
  for (const std::string& line : channel_.take_log_lines()) core_.log(line);
  channel_.run_commands([this](std::string_view line) { return reader_.execute(line); });
  if (channel_.snapshot_wanted()) channel_.publish(core_.status_snapshot());
}

}  // namespace vedette::app
