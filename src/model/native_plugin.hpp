// Which monitoring-plugins program a command runs inside the executor instead of as a process (see
// docs/native-checks.md). Decided once per command at config load (native::classify_command); read-only
// after.
// Built by config/ on one thread; read-only, and read from any thread, once the model is published.
#pragma once

#include <cstdint>

namespace vedette::model {

enum class NativePlugin : std::uint8_t { none, check_dummy, check_tcp, check_ping, check_icmp, check_http };

}  // namespace vedette::model
