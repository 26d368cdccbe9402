// Naemon's flap detection (flapping.c) as pure functions: when a host's or service's state goes into its
// state history, the weighted percent state change over that history, when the object starts or stops
// flapping, and what disabling flap detection undoes. Each function updates the object's FlapHistory and
// returns a FlapOutcome saying what must follow; the caller does it (log, comment, notifications), in the
// order listed on FlapOutcome. No I/O, no clock: the time comes in as an argument. Core thread only.
//
//   const FlapOutcome out = check_for_service_flapping(hot.flap, view, settings, /*update=*/true);
//   if (out.change == FlapChange::started) {
//     log(format_service_flapping_alert(host, svc, out));
//     hot.flap.flapping_comment_id = comments.add(id, service_flapping_comment(host, svc, out, now));
//     notify(NotificationType::flapping_start);
//   }
//
// Follows Naemon 1.5 (check_for_service_flapping, check_for_host_flapping, set_/clear_*_flap,
// handle_*_flap_detection_disabled), unchanged up to its current master.
#pragma once

#include "engine/state/check_state.hpp"
#include "model/options.hpp"
#include "state/comments.hpp"
#include "state/flap_history.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace vedette::engine {

using state::FlapHistory;
using state::HostFlapHistory;

// ---- Inputs -----------------------------------------------------------------------------------------------

// The flap detection settings of one object kind (services or hosts), from the main config and commands.
struct FlapSettings {
  bool enable_flap_detection = false;  // as now (ENABLE_FLAP_DETECTION / DISABLE_FLAP_DETECTION)
  double low_threshold = 20.0;         // low_service_flap_threshold or low_host_flap_threshold
  double high_threshold = 30.0;        // high_service_flap_threshold or high_host_flap_threshold
  int interval_length = 60;            // seconds per interval unit (hosts: notification_interval)
};

// The object as it is when the check is made, filled by the caller from its model and hot state.
struct FlapView {
  int current_state = 0;
  model::OptionSet flap_detection_options = model::k_opt_all;  // bits 1 << state (model/options.hpp)
  bool flap_detection_enabled = true;  // as now (configuration or ENABLE/DISABLE_*_FLAP_DETECTION)
  double low_flap_threshold = 0;       // the object's; 0 or less: FlapSettings' value
  double high_flap_threshold = 0;
  int current_notification_number = 0;
};

struct ServiceFlapView : FlapView {
  StateType state_type = StateType::hard;
};

struct HostFlapView : FlapView {
  double notification_interval = 30.0;  // in interval_length units, as in effect
};

// ---- Outcome ----------------------------------------------------------------------------------------------

enum class FlapChange : std::uint8_t {
  none,
  started,   // percent >= high threshold while not flapping
  stopped,   // percent <= low threshold while flapping
  disabled,  // flap detection was turned off while flapping
};

// What the caller must do, in this order (Naemon's):
//   started:  log the STARTED line (a runtime warning), add the flapping comment and store its id in
//             FlapHistory::flapping_comment_id, send a FLAPPINGSTART notification;
//   stopped:  log the STOPPED line (info), delete `comment_to_delete` if not 0, send FLAPPINGSTOP, then a
//             normal notification if `send_recovery`;
//   disabled: delete `comment_to_delete` if not 0, log the DISABLED line (info), send FLAPPINGDISABLED, then
//             a normal notification if `send_recovery`.
// The FlapHistory is already updated (is_flapping, the comment id cleared), so notification viability sees
// the object as no longer flapping when the recovery goes out. `recorded`: a state went into the history and
// percent_state_change was recomputed (status.dat changes even without a FlapChange).
struct FlapOutcome {
  FlapChange change = FlapChange::none;
  bool recorded = false;
  bool send_recovery = false;
  unsigned long comment_to_delete = 0;
  double percent_state_change = 0;
  // The thresholds in effect (log lines, comment, broker data); 0 and 0 for `disabled`, as Naemon passes.
  double low_threshold = 0;
  double high_threshold = 0;
};

// ---- Detection --------------------------------------------------------------------------------------------

// Naemon's weighted percent state change over the ring as it stands: the 21 states are taken oldest first
// and each change between neighbours counts with a weight rising linearly from 0.75 to 1.25; the sum is
// scaled so 20 changes of weight 1 would be 100%. As in Naemon, the first comparison is the oldest state
// with itself and the newest state is never compared, so only the 20 oldest states count: the state just
// recorded shows from the next update on, and the maximum is 96.25%.
[[nodiscard]] double percent_state_change(const FlapHistory& history);

// Whether a flap check records the current state: `always` after a result (Naemon's update or
// actual_check), `when_due` otherwise — for a host, once notification_interval has passed since the last
// record; for a service, never.
enum class FlapRecord : std::uint8_t { when_due, always };

// Naemon's check_for_service_flapping. Nothing happens when the current state is not in
// flap_detection_options, in a soft problem state (soft recoveries do count), or with FlapRecord::when_due.
// Otherwise the state is recorded and the percent recomputed, also while flap detection is off globally or
// for the service; only then does the outcome depend on them: flapping starts at >= high and stops at
// <= low, and between the two nothing changes.
[[nodiscard]] FlapOutcome check_for_service_flapping(FlapHistory& history, const ServiceFlapView& service,
                                                     const FlapSettings& settings, FlapRecord record);

// Naemon's check_for_host_flapping. As for services, except that soft states count too, and the state is
// recorded `always`, or else once more than notification_interval * interval_length seconds (truncated)
// have passed since the last record; `now` is that record's time.
[[nodiscard]] FlapOutcome check_for_host_flapping(HostFlapHistory& history, const HostFlapView& host,
                                                  const FlapSettings& settings, Time now, FlapRecord record);

// Naemon's handle_host_flap_detection_disabled / handle_service_flap_detection_disabled, for an object that
// may be flapping when flap detection is turned off for it or globally: `disabled` when it was flapping
// (with a recovery when check_flapping_recovery_notification was set and current_state is 0, OK/UP), else
// nothing. The caller updates the object's status either way, as Naemon does.
[[nodiscard]] FlapOutcome handle_flap_detection_disabled(FlapHistory& history, int current_state);

// ---- Log lines and the comment ----------------------------------------------------------------------------

// Naemon's lines for a started, stopped or disabled outcome (empty for none); percents as "%.1f":
//   SERVICE FLAPPING ALERT: web01;HTTP;STARTED; Service appears to have started flapping (24.3% change >=
//     20.0% threshold)
//   SERVICE FLAPPING ALERT: web01;HTTP;STOPPED; Service appears to have stopped flapping (3.8% change < 5.0%
//     threshold)
//   SERVICE FLAPPING ALERT: web01;HTTP;DISABLED; Flap detection has been disabled
//   HOST FLAPPING ALERT: web01;STARTED; Host appears to have started flapping (24.3% change > 20.0%
//   threshold) HOST FLAPPING ALERT: web01;STOPPED; Host appears to have stopped flapping (3.8% change < 5.0%
//   threshold) HOST FLAPPING ALERT: web01;DISABLED; Flap detection has been disabled
// STARTED shows the high threshold, STOPPED the low one. Note ">=" for services but ">" for hosts, and "<"
// although stopping happens at <= low: Naemon's texts, kept.
[[nodiscard]] std::string format_service_flapping_alert(std::string_view host, std::string_view service,
                                                        const FlapOutcome& outcome);
[[nodiscard]] std::string format_host_flapping_alert(std::string_view host, const FlapOutcome& outcome);

// The comment Naemon adds when flapping starts: entry type flapping (3), source internal, not persistent,
// never expires, author "(Naemon Process)", entered at `now`, comment_id 0 (the book assigns one), e.g.
//   Notifications for this service are being suppressed because it was detected as having been flapping
//   between different states (24.3% change >= 20.0% threshold).  When the service state stabilizes and the
//   flapping stops, notifications will be re-enabled.
// (the host's says "host" and ">").
[[nodiscard]] state::Comment service_flapping_comment(std::string_view host, std::string_view service,
                                                      const FlapOutcome& outcome, Time now);
[[nodiscard]] state::Comment host_flapping_comment(std::string_view host, const FlapOutcome& outcome,
                                                   Time now);

}  // namespace vedette::engine
