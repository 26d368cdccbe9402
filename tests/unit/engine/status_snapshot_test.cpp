// The snapshot builder over the World's state tables: a recycled snapshot is brought up to date by copying
// only the objects changed since it was filled, and what it holds is what a full copy holds; a reload or a
// non-const walk of a table copies everything again.
#include "engine/status_snapshot.hpp"

#include "engine/books/downtime_book.hpp"
#include "world_fixture.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

namespace vedette::engine {
namespace {

constexpr const char* k_objects = R"(define host {
  host_name web01
  max_check_attempts 1
}
define host {
  host_name db01
  max_check_attempts 1
}
define service {
  host_name web01
  service_description HTTP
  check_command check_http
  max_check_attempts 3
}
define service {
  host_name db01
  service_description MySQL
  check_command check_mysql
  max_check_attempts 3
}
define command {
  command_name check_http
  command_line /bin/true
}
define command {
  command_name check_mysql
  command_line /bin/true
}
)";

class Snapshots {
 public:
  Snapshots() : f(k_objects, "") {}

  std::shared_ptr<const files::StatusSnapshot> build() {
    World& w = f.world();
    const SnapshotSource source{.model = *w.model,
                                .main = w.main,
                                .hosts = w.hosts.all(),
                                .services = w.services.all(),
                                .program = program,
                                .downtime_depths = w.downtimes.get(),
                                .host_changes = &w.hosts.changes(),
                                .service_changes = &w.services.changes()};
    return builder.build(source);
  }
  // What a full copy of the same state holds.
  std::shared_ptr<const files::StatusSnapshot> full() {
    World& w = f.world();
    return make_status_snapshot({.model = *w.model,
                                 .main = w.main,
                                 .hosts = w.hosts.all(),
                                 .services = w.services.all(),
                                 .program = program,
                                 .downtime_depths = w.downtimes.get()});
  }
  static std::string output(const files::StatusSnapshot& s, const files::StatusState& o) {
    return std::string(s.text_at(o.text_offset, o.output_size));
  }
  std::size_t service(const char* host, const char* description) {
    return model::index(f.world().model->find_service(host, description));
  }

  testing::WorldFixture f;
  ProgramStatus program;
  StatusSnapshotBuilder builder;
};

TEST(StatusSnapshotBuilder, CopiesOnlyWhatChangedSinceTheRecycledSnapshot) {
  Snapshots t;
  World& w = t.f.world();
  const std::size_t http = t.service("web01", "HTTP");
  const std::size_t mysql = t.service("db01", "MySQL");
  w.services[http].plugin_output = "HTTP OK";
  w.services[mysql].plugin_output = "MySQL OK";
  std::size_t text_size = 0;
  {
    const auto first = t.build();
    text_size = first->text.size();
    EXPECT_EQ(Snapshots::output(*first, first->services[http]), "HTTP OK");
  }  // released: its memory is the next build's
  w.services[http].plugin_output = "HTTP CRITICAL";
  w.services[http].current_state = 2;
  const auto second = t.build();
  const auto full = t.full();
  EXPECT_EQ(Snapshots::output(*second, second->services[http]), "HTTP CRITICAL");
  EXPECT_EQ(second->services[http].current_state, 2);
  EXPECT_EQ(Snapshots::output(*second, second->services[mysql]), "MySQL OK");
  // Only HTTP was copied again: its new text went after the old texts, which stay where they were.
  EXPECT_EQ(second->text.size(), text_size + std::string("HTTP CRITICAL").size());
  EXPECT_EQ(full->text.size(),
            text_size - std::string("HTTP OK").size() + std::string("HTTP CRITICAL").size());
}

TEST(StatusSnapshotBuilder, ReadingThroughAConstTableMarksNothing) {
  Snapshots t;
  World& w = t.f.world();
  const std::size_t http = t.service("web01", "HTTP");
  { const auto first = t.build(); }
  const ChangeMarks::Generation since = w.services.changes().current() - 1;
  EXPECT_EQ(std::as_const(w.services)[http].current_state, 0);
  EXPECT_FALSE(w.services.changes().since(http, since));
  (void)w.services[http];
  EXPECT_TRUE(w.services.changes().since(http, since));
}

TEST(StatusSnapshotBuilder, AWalkOrAReplacementCopiesEverythingAgain) {
  Snapshots t;
  World& w = t.f.world();
  const std::size_t mysql = t.service("db01", "MySQL");
  w.services[mysql].plugin_output = "MySQL OK";
  std::size_t text_size = 0;
  {
    const auto first = t.build();
    text_size = first->text.size();
  }
  for (ServiceState& s : w.services) s.current_attempt = 2;  // a non-const walk
  {
    const auto second = t.build();
    EXPECT_EQ(second->text.size(), text_size);  // filled anew, not appended to
    EXPECT_EQ(second->services[mysql].current_attempt, 2);
  }
  std::vector<ServiceState> replaced = w.services.all();
  replaced[mysql].plugin_output = "MySQL WARNING";
  w.services.vector() = std::move(replaced);
  const auto third = t.build();
  EXPECT_EQ(Snapshots::output(*third, third->services[mysql]), "MySQL WARNING");
}

TEST(StatusSnapshotBuilder, DowntimeDepthsComeFromTheBookWhateverChanged) {
  Snapshots t;
  World& w = t.f.world();
  const std::size_t http = t.service("web01", "HTTP");
  { const auto first = t.build(); }
  ASSERT_TRUE(w.downtimes
                  ->load(DowntimeTarget::of_service(w.model->host_by_name.at("web01"),
                                                    model::ServiceId{static_cast<std::uint32_t>(http)}),
                         {.is_service = true,
                          .host_name = "web01",
                          .service_description = "HTTP",
                          .downtime_id = 1,
                          .start_time = 1700000000,
                          .end_time = 1700003600,
                          .fixed = true,
                          .is_in_effect = true})
                  .ok());
  const auto second = t.build();
  EXPECT_EQ(second->services[http].scheduled_downtime_depth, 1);
}

}  // namespace
}  // namespace vedette::engine
