// The built-in Livestatus, wired to the core: the server's threads (livestatus/server.hpp) and the core
// thread's end of their channel, watched in the core's loop. When the channel's eventfd fires, the core runs
// the queued COMMAND lines through the command file's dispatcher, reopens the log for LOGROTATE, writes the
// server's log lines, and takes one status snapshot for every query thread waiting for one.
#pragma once

#include "base/expected.hpp"
#include "commands/command_reader.hpp"
#include "engine/core.hpp"
#include "livestatus/core_channel.hpp"
#include "livestatus/server.hpp"
#include "loop/loop.hpp"

#include <memory>
#include <string>
#include <vector>

namespace vedette::app {

class LivestatusLink final : public loop::FdHandler {
 public:
  // Null when the main config asks for no Livestatus, an error when it cannot serve (the daemon refuses
  // to start). `notes` gets the options it ignored.
  [[nodiscard]] static base::Expected<std::unique_ptr<LivestatusLink>> start(engine::Core& core,
                                                                             commands::CommandReader& reader,
                                                                             std::vector<std::string>& notes);
  // Releases every waiting query thread, closes the connections and the sockets. Core thread, after run().
  ~LivestatusLink();
  LivestatusLink(const LivestatusLink&) = delete;
  LivestatusLink& operator=(const LivestatusLink&) = delete;

 private:
  LivestatusLink(engine::Core& core, commands::CommandReader& reader);
  void on_ready(int fd, loop::Interest events) override;

  engine::Core& core_;
  commands::CommandReader& reader_;
  livestatus::CoreChannel channel_;
  std::unique_ptr<livestatus::Server> server_;
};

}  // namespace vedette::app
