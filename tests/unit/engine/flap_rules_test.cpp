// Naemon's flap detection (flapping.c): what gets recorded, the weighted percent, thresholds and hysteresis,
// the effects of starting, stopping and disabling, and the exact log lines and comment.
#include "engine/checks/flap_rules.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace vedette::engine {
namespace {

constexpr Time k_now = 1'700'000'000;

ServiceFlapView service_in(int state, StateType type = StateType::hard) {
  ServiceFlapView v;
  v.current_state = state;
  v.state_type = type;
  return v;
}

FlapSettings enabled_settings() {
  return {.enable_flap_detection = true};
}  // 20 / 30, Naemon's defaults

// Feeds hard results, one digit per state, and returns every outcome.
std::vector<FlapOutcome> feed(FlapHistory& h, std::string_view states, const FlapSettings& s,
                              ServiceFlapView view = {}) {
  std::vector<FlapOutcome> out;
  for (char c : states) {
    view.current_state = c - '0';
    out.push_back(check_for_service_flapping(h, view, s, FlapRecord::always));
  }
  return out;
}

TEST(FlapPercentTest, NewHistoryIsStable) {
  FlapHistory h;
  EXPECT_EQ(percent_state_change(h), 0.0);
}

TEST(FlapPercentTest, AlternatingStatesGiveNaemonsWeightedPercent) {
  FlapHistory h;
  const std::vector<FlapOutcome> out = feed(h, "2020202020202020202020202", {});
  // The state just recorded is not compared yet: the first change shows one result later, at the
  // highest weight (1.25 of 20).
  EXPECT_EQ(out[0].percent_state_change, 0.0);
  EXPECT_EQ(out[1].percent_state_change, 6.25);
  EXPECT_DOUBLE_EQ(out[2].percent_state_change, 12.368421052631579);  // + (0.75 + 18 * 0.5 / 19) * 5
  EXPECT_DOUBLE_EQ(out[4].percent_state_change, 24.210526315789473);
  EXPECT_DOUBLE_EQ(out[6].percent_state_change, 35.526315789473685);
  // Saturated: 19 changes weighted 0.75 + k * 0.5 / 19, k = 1 … 19, i.e. 19.25 of 20.
  EXPECT_NEAR(out[19].percent_state_change, 96.25, 1e-9);
  EXPECT_EQ(out[24].percent_state_change, out[19].percent_state_change);
  EXPECT_EQ(h.percent_state_change, out[24].percent_state_change);
}

TEST(FlapPercentTest, OldChangesWeighLessThanRecentOnes) {
  FlapHistory oldest;  // only the oldest state differs: one change at the lowest weight, 0.75 + 0.5 / 19
  oldest.states[0] = 2;
  EXPECT_DOUBLE_EQ(percent_state_change(oldest), (0.5 / 19 + 0.75) * 100 / 20);
  EXPECT_DOUBLE_EQ(percent_state_change(oldest), 3.8815789473684212);
  FlapHistory newest;  // only the newest state differs: not counted
  newest.states[20] = 2;
  EXPECT_EQ(percent_state_change(newest), 0.0);
  FlapHistory second_newest;
  second_newest.states[19] = 2;  // 0 -> 2 at k = 19 (1.25), 2 -> 0 not compared
  EXPECT_EQ(percent_state_change(second_newest), 6.25);
}

TEST(FlapHistoryTest, RingWrapsAfter21Entries) {
  FlapHistory h;
  for (int i = 0; i < 21; ++i) {
    EXPECT_TRUE(check_for_service_flapping(h, service_in(i % 4), {}, FlapRecord::always).recorded);
  }
  EXPECT_EQ(h.index, 0);
  EXPECT_EQ(h.states[0], 0);
  EXPECT_EQ(h.states[20], 20 % 4);
  (void)check_for_service_flapping(h, service_in(3), {},
                                   FlapRecord::always);  // the 22nd overwrites the oldest
  EXPECT_EQ(h.index, 1);
  EXPECT_EQ(h.states[0], 3);
  EXPECT_EQ(h.states[1], 1);
}

TEST(FlapHistoryTest, RingIsReadFromTheOldestEntry) {
  // The same sequence stored at a different offset of the ring gives the same percent.
  FlapHistory a;
  FlapHistory b;
  const std::vector<int> seq = {0, 2, 2, 0, 1, 1, 1, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0, 0};
  for (int i = 0; i < 21; ++i) {
    a.states[i] = static_cast<std::uint8_t>(seq[i]);
    b.states[(i + 7) % 21] = static_cast<std::uint8_t>(seq[i]);
  }
  b.index = 7;
  EXPECT_EQ(percent_state_change(a), percent_state_change(b));
  EXPECT_GT(percent_state_change(a), 0.0);
}

TEST(FlapServiceTest, HysteresisBetweenLowAndHigh) {
  FlapHistory h;
  const std::vector<FlapOutcome> out = feed(h, "20202020000000000000000000", enabled_settings());
  // 29.93% (6th) is below 30: no start; 35.53% (7th) starts.
  EXPECT_EQ(out[5].change, FlapChange::none);
  EXPECT_EQ(out[6].change, FlapChange::started);
  EXPECT_DOUBLE_EQ(out[6].high_threshold, 30.0);
  EXPECT_DOUBLE_EQ(out[6].low_threshold, 20.0);
  // Falling back through 29.93%, 25.26% and 20.72% keeps it flapping; 16.32% (24th) stops it.
  for (int i = 7; i < 23; ++i) EXPECT_EQ(out[i].change, FlapChange::none) << i;
  EXPECT_DOUBLE_EQ(out[20].percent_state_change, 29.934210526315788);
  EXPECT_DOUBLE_EQ(out[22].percent_state_change, 20.723684210526315);
  EXPECT_EQ(out[23].change, FlapChange::stopped);
  EXPECT_DOUBLE_EQ(out[23].percent_state_change, 16.315789473684212);
  EXPECT_FALSE(h.is_flapping);
  EXPECT_EQ(out[24].change, FlapChange::none);
}

TEST(FlapServiceTest, StartsAtExactlyHighAndStopsAtExactlyLow) {
  FlapSettings s = enabled_settings();
  s.high_threshold = 6.25;  // the second result of 2, 0 gives exactly 6.25
  s.low_threshold = 5.0;
  FlapHistory h;
  EXPECT_EQ(feed(h, "20", s)[1].change, FlapChange::started);
  // With low above high, "<= low" is tested first and wins, as in Naemon.
  s.low_threshold = 20.0;
  FlapHistory inverted;
  EXPECT_EQ(feed(inverted, "20", s)[1].change, FlapChange::none);

  // A flapping service whose next record gives exactly 6.25 (one change, the newest compared pair).
  FlapHistory g;
  g.is_flapping = true;
  g.states[20] = 2;
  FlapHistory g2 = g;
  s.high_threshold = 30.0;
  s.low_threshold = 6.25;
  FlapOutcome out = check_for_service_flapping(g, service_in(0), s, FlapRecord::always);
  EXPECT_EQ(out.percent_state_change, 6.25);
  EXPECT_EQ(out.change, FlapChange::stopped);  // <= low
  s.low_threshold = 6.0;
  out = check_for_service_flapping(g2, service_in(0), s, FlapRecord::always);
  EXPECT_EQ(out.change, FlapChange::none);  // between the two: still flapping
  EXPECT_TRUE(g2.is_flapping);
}

TEST(FlapServiceTest, ObjectThresholdsOverrideTheGlobalOnesEachOnItsOwn) {
  FlapSettings s = enabled_settings();
  ServiceFlapView v;
  v.high_flap_threshold = 24.0;  // 5th result (24.21%) starts instead of the 7th
  FlapHistory h;
  std::vector<FlapOutcome> out = feed(h, "20202", s, v);
  EXPECT_EQ(out[4].change, FlapChange::started);
  EXPECT_DOUBLE_EQ(out[4].high_threshold, 24.0);
  EXPECT_DOUBLE_EQ(out[4].low_threshold, 20.0);  // low still global

  v.high_flap_threshold = -1;  // 0 or less: the global one
  v.low_flap_threshold = 5.0;
  FlapHistory g;
  out = feed(g, "20202", s, v);
  EXPECT_EQ(out[4].change, FlapChange::none);
  EXPECT_DOUBLE_EQ(out[4].high_threshold, 30.0);
  EXPECT_DOUBLE_EQ(out[4].low_threshold, 5.0);
}

TEST(FlapServiceTest, StatesOutsideFlapDetectionOptionsAreNotRecorded) {
  ServiceFlapView v = service_in(k_state_warning);
  v.flap_detection_options = model::k_opt_ok | model::k_opt_critical;
  FlapHistory h;
  const FlapOutcome out = check_for_service_flapping(h, v, enabled_settings(), FlapRecord::always);
  EXPECT_FALSE(out.recorded);
  EXPECT_EQ(h.index, 0);
  v.current_state = k_state_critical;
  EXPECT_TRUE(check_for_service_flapping(h, v, enabled_settings(), FlapRecord::always).recorded);
  EXPECT_EQ(h.index, 1);
  EXPECT_EQ(h.states[0], k_state_critical);
  v.flap_detection_options = model::k_opt_nothing;
  EXPECT_FALSE(check_for_service_flapping(h, v, enabled_settings(), FlapRecord::always).recorded);
}

TEST(FlapServiceTest, SoftProblemsAreNotRecordedButSoftRecoveriesAre) {
  FlapHistory h;
  EXPECT_FALSE(
      check_for_service_flapping(h, service_in(2, StateType::soft), {}, FlapRecord::always).recorded);
  EXPECT_EQ(h.index, 0);
  EXPECT_TRUE(check_for_service_flapping(h, service_in(0, StateType::soft), {}, FlapRecord::always).recorded);
  EXPECT_TRUE(check_for_service_flapping(h, service_in(2, StateType::hard), {}, FlapRecord::always).recorded);
  EXPECT_EQ(h.index, 2);
}

TEST(FlapServiceTest, WithoutUpdateNothingHappens) {
  FlapHistory h;
  h.is_flapping = true;  // even though 0% would stop it
  const FlapOutcome out =
      check_for_service_flapping(h, service_in(2), enabled_settings(), FlapRecord::when_due);
  EXPECT_FALSE(out.recorded);
  EXPECT_EQ(out.change, FlapChange::none);
  EXPECT_EQ(h.index, 0);
  EXPECT_TRUE(h.is_flapping);
}

TEST(FlapServiceTest, DisabledDetectionStillRecordsTheHistory) {
  FlapSettings off;  // enable_flap_detection = false, Naemon's default
  FlapHistory h;
  std::vector<FlapOutcome> out = feed(h, "20202020", off);
  EXPECT_EQ(out[7].change, FlapChange::none);
  EXPECT_TRUE(out[7].recorded);
  EXPECT_DOUBLE_EQ(h.percent_state_change, 40.986842105263165);
  EXPECT_FALSE(h.is_flapping);

  ServiceFlapView v;
  v.flap_detection_enabled = false;  // globally on, off for the service
  FlapHistory g;
  out = feed(g, "20202020", enabled_settings(), v);
  EXPECT_EQ(out[7].change, FlapChange::none);
  EXPECT_FALSE(g.is_flapping);
  // Turned back on, the next result starts flapping on the history gathered meanwhile.
  v.flap_detection_enabled = true;
  out = feed(g, "2", enabled_settings(), v);
  EXPECT_EQ(out[0].change, FlapChange::started);
  EXPECT_DOUBLE_EQ(out[0].percent_state_change, 46.315789473684205);
}

TEST(FlapServiceTest, StartRemembersWhetherARecoveryIsOwed) {
  // Started in a notified problem: a recovery follows when it stops in OK.
  FlapHistory h;
  ServiceFlapView v;
  v.current_notification_number = 2;
  std::vector<FlapOutcome> out = feed(h, "2020202", enabled_settings(), v);
  ASSERT_EQ(out[6].change, FlapChange::started);
  EXPECT_TRUE(h.is_flapping);
  EXPECT_TRUE(h.check_flapping_recovery_notification);
  EXPECT_EQ(out[6].comment_to_delete, 0u);
  h.flapping_comment_id = 41;                                  // the caller stores the comment's id
  out = feed(h, std::string(17, '0'), enabled_settings(), v);  // 16.32% at the 24th
  const FlapOutcome& stop = out.back();
  ASSERT_EQ(stop.change, FlapChange::stopped);
  EXPECT_TRUE(stop.send_recovery);
  EXPECT_EQ(stop.comment_to_delete, 41u);
  EXPECT_EQ(h.flapping_comment_id, 0u);
  EXPECT_FALSE(h.check_flapping_recovery_notification);
  EXPECT_FALSE(h.is_flapping);
}

TEST(FlapServiceTest, NoRecoveryWhenNothingWasNotifiedOrItStopsInAProblem) {
  // Started with notification number 0: nothing owed.
  FlapHistory h;
  std::vector<FlapOutcome> out = feed(h, "2020202", enabled_settings());
  ASSERT_EQ(out[6].change, FlapChange::started);
  EXPECT_FALSE(h.check_flapping_recovery_notification);
  // Started in OK (the 7th state recorded is 2, but the view's state decides): nothing owed either.
  FlapHistory g;
  ServiceFlapView v;
  v.current_notification_number = 3;
  out = feed(g, "2020200", enabled_settings(), v);
  ASSERT_EQ(out[6].change, FlapChange::started);
  EXPECT_FALSE(g.check_flapping_recovery_notification);
  // Owed, but it stops while still in a problem state: no recovery, and the debt is forgotten.
  FlapHistory f;
  out = feed(f, "2020202", enabled_settings(), v);
  ASSERT_TRUE(f.check_flapping_recovery_notification);
  out = feed(f, std::string(16, '2'), enabled_settings(), v);  // 16.32% at the 23rd
  ASSERT_EQ(out.back().change, FlapChange::stopped);
  EXPECT_FALSE(out.back().send_recovery);
  EXPECT_FALSE(f.check_flapping_recovery_notification);
}

// ---- Hosts ------------------------------------------------------------------------------------------------

HostFlapView host_in(int state) {
  HostFlapView v;
  v.current_state = state;
  v.notification_interval = 30;
  return v;
}

TEST(FlapHostTest, ResultsAlwaysRecordSoftStatesIncluded) {
  HostFlapHistory h;
  h.last_state_history_update = k_now;
  const FlapOutcome out = check_for_host_flapping(h, host_in(k_host_down), {}, k_now, FlapRecord::always);
  EXPECT_TRUE(out.recorded);
  EXPECT_EQ(h.states[0], k_host_down);
  EXPECT_TRUE(check_for_host_flapping(h, host_in(k_host_up), {}, k_now + 1, FlapRecord::always).recorded);
  EXPECT_EQ(h.last_state_history_update, k_now + 1);
  EXPECT_EQ(h.index, 2);
}

TEST(FlapHostTest, WithoutAResultRecordsOnlyAfterTheNotificationInterval) {
  HostFlapHistory h;
  h.last_state_history_update = k_now;
  const FlapSettings s = enabled_settings();  // interval_length 60: 30 * 60 = 1800 s
  EXPECT_FALSE(check_for_host_flapping(h, host_in(1), s, k_now + 1800, FlapRecord::when_due).recorded);
  EXPECT_EQ(h.last_state_history_update, k_now);
  EXPECT_TRUE(check_for_host_flapping(h, host_in(1), s, k_now + 1801, FlapRecord::when_due).recorded);
  EXPECT_EQ(h.last_state_history_update, k_now + 1801);
  EXPECT_EQ(h.index, 1);

  // The product is truncated to whole seconds: 0.51 * 60 = 30.6 -> 30.
  HostFlapView v = host_in(1);
  v.notification_interval = 0.51;
  EXPECT_FALSE(check_for_host_flapping(h, v, s, k_now + 1801 + 30, FlapRecord::when_due).recorded);
  EXPECT_TRUE(check_for_host_flapping(h, v, s, k_now + 1801 + 31, FlapRecord::when_due).recorded);

  // A host never recorded (time 0) records at once.
  HostFlapHistory fresh;
  EXPECT_TRUE(check_for_host_flapping(fresh, host_in(0), s, k_now, FlapRecord::when_due).recorded);
}

TEST(FlapHostTest, OptionsThresholdsAndHysteresisAsForServices) {
  HostFlapHistory h;
  HostFlapView v = host_in(0);
  v.flap_detection_options = model::k_opt_up | model::k_opt_down;
  v.current_state = k_host_unreachable;
  EXPECT_FALSE(check_for_host_flapping(h, v, enabled_settings(), k_now, FlapRecord::always).recorded);
  FlapSettings s = enabled_settings();
  s.high_threshold = 24.0;  // high_host_flap_threshold
  const char* seq = "10101";
  FlapOutcome last;
  for (int i = 0; seq[i] != '\0'; ++i) {
    v.current_state = seq[i] - '0';
    last = check_for_host_flapping(h, v, s, k_now + i, FlapRecord::always);
  }
  EXPECT_EQ(last.change, FlapChange::started);
  EXPECT_DOUBLE_EQ(last.percent_state_change, 24.210526315789473);
  EXPECT_EQ(
      format_host_flapping_alert("router", last),
      "HOST FLAPPING ALERT: router;STARTED; Host appears to have started flapping (24.2% change > 24.0% "
      "threshold)");
}

// ---- Disabling --------------------------------------------------------------------------------------------

TEST(FlapDisabledTest, ClearsAFlappingObject) {
  FlapHistory h;
  h.is_flapping = true;
  h.check_flapping_recovery_notification = true;
  h.flapping_comment_id = 7;
  h.percent_state_change = 42.5;
  const FlapOutcome out = handle_flap_detection_disabled(h, 0);
  EXPECT_EQ(out.change, FlapChange::disabled);
  EXPECT_EQ(out.comment_to_delete, 7u);
  EXPECT_TRUE(out.send_recovery);
  EXPECT_EQ(out.percent_state_change, 42.5);
  EXPECT_EQ(out.low_threshold, 0.0);
  EXPECT_EQ(out.high_threshold, 0.0);
  EXPECT_FALSE(h.is_flapping);
  EXPECT_FALSE(h.check_flapping_recovery_notification);
  EXPECT_EQ(h.flapping_comment_id, 0u);
  EXPECT_EQ(h.percent_state_change, 42.5);  // kept

  EXPECT_EQ(format_service_flapping_alert("web01", "HTTP", out),
            "SERVICE FLAPPING ALERT: web01;HTTP;DISABLED; Flap detection has been disabled");
  EXPECT_EQ(format_host_flapping_alert("web01", out),
            "HOST FLAPPING ALERT: web01;DISABLED; Flap detection has been disabled");
}

TEST(FlapDisabledTest, RecoveryOnlyInOkAndNothingWhenNotFlapping) {
  FlapHistory h;
  h.is_flapping = true;
  h.check_flapping_recovery_notification = true;
  EXPECT_FALSE(handle_flap_detection_disabled(h, 2).send_recovery);
  EXPECT_FALSE(h.check_flapping_recovery_notification);

  FlapHistory calm;
  calm.check_flapping_recovery_notification = true;  // left alone: only cleared for a flapping object
  const FlapOutcome out = handle_flap_detection_disabled(calm, 0);
  EXPECT_EQ(out.change, FlapChange::none);
  EXPECT_FALSE(out.send_recovery);
  EXPECT_TRUE(calm.check_flapping_recovery_notification);
  EXPECT_EQ(format_service_flapping_alert("web01", "HTTP", out), "");
}

// ---- Texts ------------------------------------------------------------------------------------------------

TEST(FlapTextTest, ServiceLogLines) {
  FlapOutcome o;
  o.change = FlapChange::started;
  o.percent_state_change = 24.3;
  o.low_threshold = 5.0;
  o.high_threshold = 20.0;
  EXPECT_EQ(format_service_flapping_alert("web01", "HTTP", o),
            "SERVICE FLAPPING ALERT: web01;HTTP;STARTED; Service appears to have started flapping (24.3% "
            "change >= 20.0% threshold)");
  o.change = FlapChange::stopped;
  o.percent_state_change = 3.75;  // printf rounds the exact binary value: 3.75 is a tie, to even
  EXPECT_EQ(format_service_flapping_alert("web01", "HTTP", o),
            "SERVICE FLAPPING ALERT: web01;HTTP;STOPPED; Service appears to have stopped flapping (3.8% "
            "change < 5.0% threshold)");
  o.percent_state_change = 6.25;
  EXPECT_EQ(format_service_flapping_alert("web01", "HTTP", o),
            "SERVICE FLAPPING ALERT: web01;HTTP;STOPPED; Service appears to have stopped flapping (6.2% "
            "change < 5.0% threshold)");
  o.change = FlapChange::none;
  EXPECT_EQ(format_service_flapping_alert("web01", "HTTP", o), "");
}

TEST(FlapTextTest, HostLogLines) {
  FlapOutcome o;
  o.change = FlapChange::started;
  o.percent_state_change = 96.24999999999997;
  o.low_threshold = 20.0;
  o.high_threshold = 30.0;
  EXPECT_EQ(format_host_flapping_alert("web01", o),
            "HOST FLAPPING ALERT: web01;STARTED; Host appears to have started flapping (96.2% change > 30.0% "
            "threshold)");
  o.change = FlapChange::stopped;
  o.percent_state_change = 0;
  EXPECT_EQ(format_host_flapping_alert("web01", o),
            "HOST FLAPPING ALERT: web01;STOPPED; Host appears to have stopped flapping (0.0% change < 20.0% "
            "threshold)");
}

TEST(FlapTextTest, FlappingComments) {
  FlapOutcome o;
  o.change = FlapChange::started;
  o.percent_state_change = 35.526315789473685;
  o.high_threshold = 30.0;
  const state::Comment s = service_flapping_comment("web01", "HTTP", o, k_now);
  EXPECT_TRUE(s.is_service);
  EXPECT_EQ(s.host_name, "web01");
  EXPECT_EQ(s.service_description, "HTTP");
  EXPECT_EQ(s.entry_type, 3);
  EXPECT_EQ(s.source, 0);
  EXPECT_FALSE(s.persistent);
  EXPECT_FALSE(s.expires);
  EXPECT_EQ(s.expire_time, 0);
  EXPECT_EQ(s.entry_time, k_now);
  EXPECT_EQ(s.comment_id, 0u);
  EXPECT_EQ(s.author, "(Naemon Process)");
  EXPECT_EQ(s.comment_data,
            "Notifications for this service are being suppressed because it was detected as having been "
            "flapping between different states (35.5% change >= 30.0% threshold).  When the service state "
            "stabilizes and the flapping stops, notifications will be re-enabled.");

  const state::Comment h = host_flapping_comment("web01", o, k_now);
  EXPECT_FALSE(h.is_service);
  EXPECT_EQ(h.host_name, "web01");
  EXPECT_EQ(h.service_description, "");
  EXPECT_EQ(h.entry_type, 3);
  EXPECT_EQ(h.author, "(Naemon Process)");
  EXPECT_EQ(h.comment_data,
            "Notifications for this host are being suppressed because it was detected as having been "
            "flapping between different states (35.5% change > 30.0% threshold).  When the host state "
            "stabilizes and the flapping stops, notifications will be re-enabled.");
}

}  // namespace
}  // namespace vedette::engine
