#include "engine/notify/event_handlers.hpp"

#include <fmt/format.h>

#include <utility>

namespace vedette::engine {

void run_event_handlers(const MacroContext& ctx, bool enabled, std::string_view object_handler,
                        SideCommandSink& sink) {
  const config::MainConfig& main = ctx.main;
  if (!main.enable_event_handlers || !enabled) return;
  const bool is_service = model::is_set(ctx.service);
  const model::Host& host = ctx.model.host(ctx.host);

  // `kind` is Naemon's name in the timeout warning ("Global service", "Host", …), `label` the log line's.
  auto run = [&](std::string_view handler, std::string_view kind, std::string_view label) {
    std::optional<ExpandedCommand> command = expand_command_text(ctx.model, handler, ctx);
    if (!command) return;
    if (main.log_event_handlers) {
      // Naemon expands the macros of the whole line, the handler's text included.
      const std::string raw =
          is_service
              ? fmt::format("{}: {};{};$SERVICESTATE$;$SERVICESTATETYPE$;$SERVICEATTEMPT$;{}", label,
                            host.name, ctx.model.service(ctx.service).description, handler)
              : fmt::format("{}: {};$HOSTSTATE$;$HOSTSTATETYPE$;$HOSTATTEMPT$;{}", label, host.name, handler);
      std::string line;
      process_macros(raw, ctx, k_strip_illegal, line);
      sink.log(line);
    }
    SideCommand side;
    side.timeout_warning =
        fmt::format("Warning: {} handler command '{}' timed out", kind, command_line_text(*command));
    side.command = std::move(*command);
    side.timeout_s = main.event_handler_timeout;
    side.purpose = SideCommand::Purpose::event_handler;
    side.host = ctx.host;
    side.service = ctx.service;
    sink.run_side_command(std::move(side));
  };
  if (is_service) {
    run(main.global_service_event_handler, "Global service", "GLOBAL SERVICE EVENT HANDLER");
    if (!object_handler.empty()) run(object_handler, "Service", "SERVICE EVENT HANDLER");
  } else {
    run(main.global_host_event_handler, "Global host", "GLOBAL HOST EVENT HANDLER");
    if (!object_handler.empty()) run(object_handler, "Host", "HOST EVENT HANDLER");
  }
}

}  // namespace vedette::engine
