// How Naemon names notification types and logs notifications and their suppression.
#include "notification_rules_fixture.hpp"

#include <gtest/gtest.h>

namespace vedette::engine::testing {
namespace {

TEST(NotificationNamesTest, TypesAsNaemonNamesThem) {
  EXPECT_EQ(notification_type_name(T::normal), "NORMAL");
  EXPECT_EQ(notification_type_name(T::acknowledgement), "ACKNOWLEDGEMENT");
  EXPECT_EQ(notification_type_name(T::flapping_start), "FLAPPINGSTART");
  EXPECT_EQ(notification_type_name(T::flapping_stop), "FLAPPINGSTOP");
  EXPECT_EQ(notification_type_name(T::flapping_disabled), "FLAPPINGDISABLED");
  EXPECT_EQ(notification_type_name(T::downtime_start), "DOWNTIMESTART");
  EXPECT_EQ(notification_type_name(T::downtime_end), "DOWNTIMEEND");
  EXPECT_EQ(notification_type_name(T::downtime_cancelled), "DOWNTIMECANCELLED");
  EXPECT_EQ(notification_type_name(T::custom), "CUSTOM");
  EXPECT_EQ(notification_type_macro(T::normal, k_state_critical), "PROBLEM");
  EXPECT_EQ(notification_type_macro(T::normal, k_state_ok), "RECOVERY");
  EXPECT_EQ(notification_type_macro(T::acknowledgement, k_state_critical), "ACKNOWLEDGEMENT");
  EXPECT_EQ(static_cast<int>(T::custom), 8) << "Naemon's NOTIFICATION_CUSTOM, as the broker sees it";
  EXPECT_EQ(k_notification_option_broadcast, 1u);
  EXPECT_EQ(k_notification_option_forced, 2u);
  EXPECT_EQ(k_notification_option_increment, 4u);
}

TEST(NotificationNamesTest, SuppressionLinesAsNaemonLogsThem) {
  EXPECT_EQ(format_service_suppression("web01", "HTTP", R::disabled, false),
            "SERVICE NOTIFICATION SUPPRESSED: web01;HTTP;Notifications are disabled globally.");
  EXPECT_EQ(
      format_host_suppression("web01", R::disabled_object, false),
      "HOST NOTIFICATION SUPPRESSED: web01;Notifications are disabled for this object by its configuration.");
  EXPECT_EQ(
      format_host_suppression("web01", R::disabled_object, true),
      "HOST NOTIFICATION SUPPRESSED: web01;Notifications are temporarily disabled for this object by an "
      "external command.");
  EXPECT_EQ(
      format_service_contact_suppression("bob", "web01", "HTTP", R::state_disabled, false),
      "SERVICE CONTACT NOTIFICATION SUPPRESSED: bob;web01;HTTP;Notifications disabled for current object "
      "state.");
  EXPECT_EQ(
      format_host_contact_suppression("bob", "web01", R::timeperiod_blocked, false),
      "HOST CONTACT NOTIFICATION SUPPRESSED: bob;web01;Notification blocked by timeperiod; notifications "
      "should not be sent out at this time.");
  EXPECT_EQ(
      format_host_suppression("web01", R::neb_blocked, false, "Module 'm' cancelled notification: 'x'"),
      "HOST NOTIFICATION SUPPRESSED: web01;Notification was blocked by a NEB module. Module 'm' cancelled "
      "notification: 'x'");
  EXPECT_EQ(suppression_reason_text(R::delay, false),
            "Notification blocked because first_notification_delay is configured and not enough time has "
            "elapsed since the object changed to a non-UP/non-OK state (or since program start).");
  EXPECT_EQ(suppression_reason_text(R::re_not_yet, false),
            "Re-notification blocked for this problem because not enough time has passed since last "
            "notification.");
  EXPECT_EQ(suppression_reason_text(R::service_host_down_unreachable, false),
            "Notification blocked for service because its associated host is either down or unreachable.");
  EXPECT_EQ(suppression_reason_text(R::ok, false), "");
  for (int r = static_cast<int>(R::disabled); r <= static_cast<int>(R::insufficient_importance); ++r)
    EXPECT_FALSE(suppression_reason_text(static_cast<R>(r), false).empty()) << r;
}

TEST(NotificationNamesTest, SuppressionIsLoggedOnlyWhenTheReasonChanges) {
  SuppressionLogFilter filter;
  EXPECT_TRUE(filter.should_log(SuppressionSubject::service, 7, R::soft_state));
  EXPECT_FALSE(filter.should_log(SuppressionSubject::service, 7, R::soft_state))
      << "same reason: debug log only";
  EXPECT_TRUE(filter.should_log(SuppressionSubject::host, 7, R::soft_state)) << "hosts are kept apart";
  EXPECT_TRUE(filter.should_log(SuppressionSubject::service, 8, R::soft_state));
  EXPECT_TRUE(filter.should_log(SuppressionSubject::service, 7, R::re_not_yet));
  EXPECT_TRUE(filter.should_log(SuppressionSubject::service, 7, R::soft_state))
      << "changed back: logged again";
  // Contacts are remembered by contact alone, whichever object the notification was about (as Naemon).
  EXPECT_TRUE(filter.should_log(SuppressionSubject::service_contact, 2, R::state_disabled));
  EXPECT_FALSE(filter.should_log(SuppressionSubject::service_contact, 2, R::state_disabled));
}

TEST(NotificationNamesTest, NotificationLinesAsNaemonLogsThem) {
  EXPECT_EQ(format_service_notification_line("alice", "web01", "HTTP", T::normal, k_state_critical,
                                             "notify-email!service", "CRITICAL - down", "", ""),
            "SERVICE NOTIFICATION: alice;web01;HTTP;CRITICAL;notify-email;CRITICAL - down");
  EXPECT_EQ(format_service_notification_line("alice", "web01", "HTTP", T::normal, k_state_ok, "notify-email",
                                             "OK", "", ""),
            "SERVICE NOTIFICATION: alice;web01;HTTP;OK;notify-email;OK");
  EXPECT_EQ(format_service_notification_line("alice", "web01", "HTTP", T::acknowledgement, k_state_critical,
                                             "notify-email!x!y", "CRITICAL - down", "admin", "on it"),
            "SERVICE NOTIFICATION: alice;web01;HTTP;ACKNOWLEDGEMENT (CRITICAL);notify-email;CRITICAL - down;"
            "admin;on it");
  EXPECT_EQ(format_service_notification_line("GLOBAL", "web01", "HTTP", T::flapping_start, k_state_warning,
                                             "global-handler", "W", "", ""),
            "SERVICE NOTIFICATION: GLOBAL;web01;HTTP;FLAPPINGSTART (WARNING);global-handler;W;;");
  EXPECT_EQ(format_host_notification_line("alice", "web01", T::normal, k_host_down, "host-notify!a",
                                          "PING down", "", ""),
            "HOST NOTIFICATION: alice;web01;DOWN;host-notify;PING down");
  EXPECT_EQ(format_host_notification_line("alice", "web01", T::downtime_start, k_host_up, "host-notify",
                                          "PING ok", "admin", "patching"),
            "HOST NOTIFICATION: alice;web01;DOWNTIMESTART (UP);host-notify;PING ok;admin;patching");
  EXPECT_EQ(
      format_host_notification_line("alice", "web01", T::custom, k_host_unreachable, "!!n!a", "o", "a", "c"),
      "HOST NOTIFICATION: alice;web01;CUSTOM (UNREACHABLE);n;o;a;c")
      << "strtok skips leading '!'";
}

}  // namespace
}  // namespace vedette::engine::testing
