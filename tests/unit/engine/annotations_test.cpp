#include "engine/annotations/annotations.hpp"

#include "world_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

namespace vedette::engine {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

constexpr const char* k_objects =
    "define command {\n  command_name ok\n  command_line /bin/true\n}\n"
    "define host {\n  host_name web01\n  address 127.0.0.1\n  max_check_attempts 1\n  check_command ok\n}\n"
    "define service {\n  host_name web01\n  service_description HTTP\n  check_command ok\n"
    "  max_check_attempts 1\n}\n";

class AnnotationsTest : public ::testing::Test {
 protected:
  AnnotationsTest() : f_(k_objects, "") {}

  CheckId service() { return f_.world().check_of(model::ServiceId{0}); }
  Time now() { return f_.world().now_epoch(); }
  void critical() {
    ServiceState& st = f_.world().services[0];
    st.current_state = 2;
    st.state_type = StateType::hard;
    st.has_been_checked = true;
  }

  testing::WorldFixture f_;
  Annotations annotations_{f_.world(), f_.notifier()};
};

TEST_F(AnnotationsTest, AnOkServiceHasNoProblemToAcknowledge) {
  annotations_.acknowledge(service(), {.author = "alice", .comment = "on it"});
  EXPECT_FALSE(f_.world().services[0].problem_has_been_acknowledged);
  EXPECT_EQ(f_.world().comments->size(), 0u);
}

TEST_F(AnnotationsTest, AnAcknowledgementWithAnEndTimeExpiresOnItsTimerWithItsComment) {
  critical();
  annotations_.acknowledge(service(), {.author = "alice", .comment = "on it", .end_time = now() + 60});
  ASSERT_TRUE(f_.world().services[0].problem_has_been_acknowledged);
  EXPECT_EQ(f_.world().comments->size(), 1u);
  f_.advance(std::chrono::seconds(30));
  EXPECT_TRUE(f_.world().services[0].problem_has_been_acknowledged);
  f_.advance(std::chrono::seconds(31));
  EXPECT_FALSE(f_.world().services[0].problem_has_been_acknowledged);
  EXPECT_EQ(f_.world().comments->size(), 0u);  // not persistent: it goes with the acknowledgement
}

// As Naemon: removing an acknowledgement (by command or at its end time) leaves acknowledgement_type, which
// the next result that would end such an acknowledgement resets.
TEST_F(AnnotationsTest, RemovingAnAcknowledgementKeepsItsTypeUntilAResultResetsIt) {
  critical();
  annotations_.acknowledge(service(),
                           {.sticky = true, .author = "alice", .comment = "on it", .end_time = now() + 600});
  ServiceState& st = f_.world().services[0];
  ASSERT_EQ(st.acknowledgement_type, 2);
  annotations_.remove_acknowledgement(service());
  EXPECT_FALSE(st.problem_has_been_acknowledged);
  EXPECT_EQ(st.acknowledgement_end_time, 0);
  EXPECT_EQ(st.acknowledgement_type, 2);
  EXPECT_EQ(f_.world().comments->size(), 0u);

  annotations_.acknowledge(service(), {.author = "bob", .comment = "again", .end_time = now() + 60});
  ASSERT_EQ(st.acknowledgement_type, 1);
  f_.advance(std::chrono::seconds(61));  // expired: the same as removed
  EXPECT_FALSE(st.problem_has_been_acknowledged);
  EXPECT_EQ(st.acknowledgement_type, 1);
}

TEST_F(AnnotationsTest, AFixedDowntimeStartsAndEndsOnItsTimerAndLogsBoth) {
  const unsigned long id = annotations_.schedule_downtime(service(), {.entry_time = now(),
                                                                      .start_time = now() + 10,
                                                                      .end_time = now() + 70,
                                                                      .fixed = true,
                                                                      .author = "alice",
                                                                      .comment = "maintenance"});
  ASSERT_NE(id, 0u);
  EXPECT_EQ(f_.world().downtimes->depth(model::ServiceId{0}), 0);
  f_.advance(std::chrono::seconds(11));
  EXPECT_EQ(f_.world().downtimes->depth(model::ServiceId{0}), 1);
  f_.advance(std::chrono::seconds(60));
  EXPECT_EQ(f_.world().downtimes->depth(model::ServiceId{0}), 0);
  EXPECT_EQ(f_.world().downtimes->size(), 0u);
  const auto log = f_.log_lines();
  EXPECT_THAT(log, Contains(HasSubstr("SERVICE DOWNTIME ALERT: web01;HTTP;STARTED;")));
  EXPECT_THAT(log, Contains(HasSubstr("SERVICE DOWNTIME ALERT: web01;HTTP;STOPPED;")));
}

TEST_F(AnnotationsTest, AFlexibleDowntimeWaitsForAProblem) {
  const unsigned long id = annotations_.schedule_downtime(service(), {.entry_time = now(),
                                                                      .start_time = now(),
                                                                      .end_time = now() + 600,
                                                                      .fixed = false,
                                                                      .duration = 120,
                                                                      .author = "alice",
                                                                      .comment = "if it breaks"});
  ASSERT_NE(id, 0u);
  f_.advance(std::chrono::seconds(10));
  EXPECT_EQ(f_.world().downtimes->depth(model::ServiceId{0}), 0);
  critical();
  EXPECT_EQ(annotations_.flexible_downtimes_on_problem(service(), now()), 1u);
  f_.advance(std::chrono::seconds(0));  // as Naemon, the start is an event of its own, due now
  EXPECT_EQ(f_.world().downtimes->depth(model::ServiceId{0}), 1);
}

TEST_F(AnnotationsTest, DeletingACommentOfTheOtherKindFails) {
  annotations_.add_comment(service(), {.author = "alice", .text = "note", .entry_time = now()});
  ASSERT_EQ(f_.world().comments->size(), 1u);
  const unsigned long id = f_.world().comments->ids_of(model::ServiceId{0}).front();
  EXPECT_FALSE(annotations_.delete_comment(ObjectKind::host, id));  // DEL_HOST_COMMENT with a service's id
  EXPECT_TRUE(annotations_.delete_comment(ObjectKind::service, id));
  EXPECT_EQ(f_.world().comments->size(), 0u);
}

// SCHEDULE_AND_PROPAGATE_HOST_DOWNTIME walks every host below the top: a parent chain as long as the
// configuration makes it must not take the core thread's stack (it recursed once per level).
TEST(AnnotationsPropagation, ADowntimeGoesDownAParentChainOfAHundredThousandHosts) {
  constexpr int k_hosts = 100'000;
  std::string objects;
  for (int i = 0; i < k_hosts; ++i) {
    objects += "define host {\n  host_name h" + std::to_string(i) +
               "\n  address 127.0.0.1\n  max_check_attempts 1\n";
    if (i > 0) objects += "  parents h" + std::to_string(i - 1) + "\n";
    objects += "}\n";
  }
  testing::WorldFixture f(objects, "");
  Annotations annotations(f.world(), f.notifier());
  const Time now = f.world().now_epoch();
  annotations.schedule_propagated_downtime(f.world().model->host_by_name.at("h0"),
                                           {.entry_time = now,
                                            .start_time = now + 60,
                                            .end_time = now + 120,
                                            .fixed = true,
                                            .author = "alice",
                                            .comment = "the whole chain"},
                                           /*triggered=*/true);
  EXPECT_EQ(f.world().downtimes->size(), static_cast<std::size_t>(k_hosts));
}

}  // namespace
}  // namespace vedette::engine
