// Naemon's event handlers (sehandlers.c): on the state changes the state machine reports
// (ServiceEffects/HostEffects::run_event_handler), the global handler and then the object's own run on the
// executor with event_handler_timeout, each logged as "[GLOBAL ]SERVICE|HOST EVENT HANDLER: …" when
// log_event_handlers is on. Core thread only.
#pragma once

#include "engine/macros/macros.hpp"
#include "engine/notify/side_command.hpp"

#include <string_view>

namespace vedette::engine {

// `ctx` names the host (and the service, for a service's handlers) whose state changed; `object_handler` is
// its event_handler as written ("restart-httpd!arg"), empty for none. Nothing runs unless
// enable_event_handlers and the object's event_handler_enabled (`enabled`) are on.
void run_event_handlers(const MacroContext& ctx, bool enabled, std::string_view object_handler,
                        SideCommandSink& sink);

}  // namespace vedette::engine
