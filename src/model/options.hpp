// Option bit sets of Naemon's object config (notification, flap detection, stalking, escalation and
// dependency options), with Naemon's bit values so they map one to one onto its state numbers.
// Any thread: plain values.
#pragma once

#include <cstdint>

namespace vedette::model {

using OptionSet = std::uint32_t;

// Bits are 1 << state, as in Naemon: hosts UP 0, DOWN 1, UNREACHABLE 2; services OK 0 … UNKNOWN 3.
inline constexpr OptionSet k_opt_nothing = 0;
inline constexpr OptionSet k_opt_all = ~OptionSet{0};
inline constexpr OptionSet k_opt_up = 1u << 0;
inline constexpr OptionSet k_opt_down = 1u << 1;
inline constexpr OptionSet k_opt_unreachable = 1u << 2;
inline constexpr OptionSet k_opt_ok = 1u << 0;
inline constexpr OptionSet k_opt_warning = 1u << 1;
inline constexpr OptionSet k_opt_critical = 1u << 2;
inline constexpr OptionSet k_opt_unknown = 1u << 3;
inline constexpr OptionSet k_opt_recovery = k_opt_ok;
inline constexpr OptionSet k_opt_pending = 1u << 10;
inline constexpr OptionSet k_opt_flapping = 1u << 11;
inline constexpr OptionSet k_opt_downtime = 1u << 12;
inline constexpr OptionSet k_opt_notifications = 1u << 13;  // stalking: log notifications

}  // namespace vedette::model
