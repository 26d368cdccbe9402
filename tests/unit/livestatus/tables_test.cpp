// The Livestatus tables over a model built by the real loader and a snapshot of hot state: names, states,
// the host_* columns of services, group membership and Naemon's list orders, custom variables, comments
// and downtimes, counters, AuthUser visibility, wait objects, the status and columns tables, and that every
// table's columns are distinct, described and sorted.
#include "livestatus/tables.hpp"

#include "config/loader.hpp"
#include "engine/books/downtime_book.hpp"
#include "engine/status_snapshot.hpp"
#include "engine/world/reload.hpp"
#include "livestatus/query.hpp"
#include "livestatus/request.hpp"
#include "livestatus/tables/tables_internal.hpp"
#include "livestatus/view.hpp"
#include "loaded_config.hpp"
#include "state/attributes.hpp"
#include "timeperiod/evaluator.hpp"
#include "timeperiod/period.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace vedette::livestatus {
namespace {

constexpr const char* k_objects = R"(define command {
  command_name  check_ping
  command_line  /bin/true $ARG1$
}
define command {
  command_name  notify_mail
  command_line  /bin/true
}
define command {
  command_name  notify_sms
  command_line  /bin/true
}
define timeperiod {
  timeperiod_name  24x7
  alias            always
  sunday           00:00-24:00
  monday           00:00-24:00
  tuesday          00:00-24:00
  wednesday        00:00-24:00
  thursday         00:00-24:00
  friday           00:00-24:00
  saturday         00:00-24:00
}
define timeperiod {
  timeperiod_name  none
  alias            never
}
define contact {
  contact_name                   admin
  alias                          Administrator
  email                          admin@example.com
  host_notification_commands     notify_mail,notify_sms
  service_notification_commands  notify_mail
  host_notification_period       24x7
  service_notification_period    24x7
  _PAGER                         555
}
define contact {
  contact_name                   alice
  host_notification_commands     notify_mail
  service_notification_commands  notify_mail
  host_notification_period       24x7
  service_notification_period    none
}
define contact {
  contact_name                   bob
  host_notification_commands     notify_mail
  service_notification_commands  notify_mail
  host_notification_period       24x7
  service_notification_period    24x7
}
define contactgroup {
  contactgroup_name  ops
  alias              Operations
  members            alice,admin
}
define contactgroup {
  contactgroup_name  dba
  alias              Databases
  members            bob
}
define host {
  host_name              web
  alias                  Web server
  address                10.0.0.1
  check_command          check_ping!100
  check_period           24x7
  max_check_attempts     3
  check_interval         5
  contacts               admin
  contact_groups         ops
  notification_period    none
  notes_url              http://wiki/$HOSTNAME$/$HOSTADDRESS$/$_HOSTOS$/$NOPE$
  hostgroups             webs,all
  _OS                    linux
  _FILENAME              /etc/web.cfg
}
define host {
  host_name              db
  address                10.0.0.2
  check_command          check_ping!200
  max_check_attempts     3
  contact_groups         dba
  parents                web
  hostgroups             all
}
define service {
  host_name              web
  service_description    HTTP
  check_command          check_ping!80
  max_check_attempts     4
  contacts               admin
  servicegroups          frontend
  action_url             /pnp/$HOSTNAME$/$SERVICEDESC$
  _PORT                  80
}
define service {
  host_name              web
  service_description    PING
  check_command          check_ping!1
  max_check_attempts     4
}
define service {
  host_name              db
  service_description    MySQL
  check_command          check_ping!3306
  max_check_attempts     4
  servicegroups          frontend
}
define hostgroup {
  hostgroup_name  webs
  alias           Web servers
}
define hostgroup {
  hostgroup_name  all
  alias           Everything
}
define servicegroup {
  servicegroup_name  frontend
  alias              Frontend
}
)";

// A list, tuple or dict cell as text: [a,1,[b,2]]; a scalar as its value.
std::string render(const Cell& c) {
  const auto atom = [&](const Cell::Atom& a) {
    return a.is_int ? std::to_string(a.value) : std::string(c.text_of(a));
  };
  switch (c.kind()) {
    case Cell::Kind::none:
      return "<none>";
    case Cell::Kind::integer:
      return std::to_string(c.as_int());
    case Cell::Kind::floating:
      return std::to_string(c.as_float());
    case Cell::Kind::string:
      return std::string(c.as_string());
    case Cell::Kind::list:
    case Cell::Kind::dict:
      break;
  }
  std::string out = "[";
  bool first = true;
  for (const Cell::Item& item : c.items()) {
    if (!first) out.append(",");
    first = false;
    const auto atoms = c.atoms_of(item);
    if (c.kind() == Cell::Kind::dict) {
      out.append(atom(atoms[0])).append("=").append(atom(atoms[1]));
    } else if (item.tuple) {
      out.append("[");
      for (std::size_t i = 0; i < atoms.size(); ++i) {
        if (i != 0) out.append(",");
        out.append(atom(atoms[i]));
      }
      out.append("]");
    } else {
      out.append(atom(atoms[0]));
    }
  }
  out.append("]");
  return out;
}

class LivestatusTables : public ::testing::Test {
 protected:
  void SetUp() override {
    loaded_.load(k_objects);
    ASSERT_FALSE(loaded_.diags.has_errors());
    engine::initial_states(model(), hosts_, services_);

    program_.now = 1700000300;
    program_.program_start = 1700000000;
    program_.pid = 4242;
    program_.version = "1.4.1";

    const model::Model& m = model();
    periods_.resize(m.timeperiods.size());
    for (std::size_t i = 0; i < m.timeperiods.size(); ++i) periods_[i].rules = &m.timeperiods[i].rules;
    evaluator_ = std::make_unique<timeperiod::Evaluator>(periods_, nullptr);
  }
  [[nodiscard]] const model::Model& model() const { return loaded_.model(); }
  [[nodiscard]] std::uint32_t host(std::string_view name) const {
    return model::index(model().host_by_name.at(name));
  }
  [[nodiscard]] std::uint32_t service(std::string_view h, std::string_view d) const {
    return model::index(model().find_service(h, d));
  }
  [[nodiscard]] std::uint32_t contact(std::string_view name) const {
    return model::index(model().contact_by_name.at(name));
  }

  // A View of a snapshot of the current hot state.
  View& view() {
    snapshot_ = engine::make_status_snapshot({.model = model(),
                                              .main = loaded_.config.main,
                                              .hosts = hosts_,
                                              .services = services_,
                                              .program = program_,
                                              .downtime_depths = &downtime_book_,
                                              .comments = comments_,
                                              .downtimes = downtimes_,
                                              .contacts = contacts_,
                                              .keep_alive = keep_alive_});
    view_ = View{};
    view_.status = snapshot_;
    view_.now = program_.now;
    view_.periods = evaluator_.get();
    view_.settings = &settings_;
    view_.counters = &counters_;
    return view_;
  }

  static const Table& table(std::string_view name) {
    const Table* t = find_table(name);
    EXPECT_NE(t, nullptr) << name;
    return *t;
  }
  static std::vector<Row> rows(const View& v, std::string_view table_name) {
    std::vector<Row> out;
    table(table_name).rows(v, out);
    return out;
  }
  static std::string read(const View& v, std::string_view table_name, std::string_view column, Row row) {
    const Column* c = table(table_name).find(column);
    if (c == nullptr) return std::string("<no column>").append(column);
    Cell cell;
    c->read(v, row, cell);
    return render(cell);
  }
  // One column over every row.
  static std::string column(const View& v, std::string_view table_name, std::string_view name) {
    std::string out;
    bool first = true;
    for (Row r : rows(v, table_name)) {
      if (!first) out.append("|");
      first = false;
      out.append(read(v, table_name, name, r));
    }
    return out;
  }
  // The body of a whole request's answer, or the error code and message.
  static std::string ask(const View& v, std::string_view text) {
    Request request;
    RequestError error;
    if (!parse_request(
            text, request, error, [](std::string_view name) { return find_table(name); }, v.now))
      return std::to_string(error.code) + " " + error.message;
    std::optional<Query> query = Query::compile(request, *find_table(request.table), error);
    if (!query) return std::to_string(error.code) + " " + error.message;
    std::string body;
    const int code = query->run(v, {}, body, error);
    return code == 200 ? body : std::to_string(code) + " " + error.message;
  }
  // The visible rows' values of a column for a contact.
  static std::string visible(const View& v, std::string_view table_name, std::string_view name,
                             std::uint32_t who) {
    std::string out;
    bool first = true;
    for (Row r : rows(v, table_name)) {
      const Table& t = table(table_name);
      if (t.visible != nullptr && !t.visible(v, r, who)) continue;
      if (!first) out.append("|");
      first = false;
      out.append(read(v, table_name, name, r));
    }
    return out;
  }

  test::LoadedConfig loaded_{"vedette_ls_tables"};
  std::vector<engine::HostState> hosts_;
  std::vector<engine::ServiceState> services_;
  engine::ProgramStatus program_;
  // What the core shares with every snapshot: the books' lists and the contacts' state (null: none, as
  // configured), and the downtime book whose depths the objects show.
  std::shared_ptr<const std::vector<files::StatusComment>> comments_;
  std::shared_ptr<const std::vector<files::StatusDowntime>> downtimes_;
  std::shared_ptr<const std::vector<state::ContactState>> contacts_;
  engine::DowntimeBook downtime_book_;
  std::shared_ptr<const void> keep_alive_ = std::make_shared<int>(0);
  std::vector<timeperiod::Period> periods_;
  std::unique_ptr<timeperiod::Evaluator> evaluator_;
  Settings settings_;
  Counters counters_;
  std::shared_ptr<const files::StatusSnapshot> snapshot_;
  View view_;
};

TEST_F(LivestatusTables, EveryTableHasDistinctDescribedSortedColumns) {
  const std::vector<std::string> names{
      "columns",       "commands",   "comments",        "contactgroups",       "contacts",
      "downtimes",     "hostgroups", "hosts",           "hostsbygroup",        "log",
      "servicegroups", "services",   "servicesbygroup", "servicesbyhostgroup", "statehist",
      "status",        "timeperiods"};
  ASSERT_EQ(all_tables().size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(all_tables()[i]->name, names[i]);
    EXPECT_EQ(find_table(names[i]), all_tables()[i]);
    const Table& t = *all_tables()[i];
    EXPECT_NE(t.rows == nullptr, t.open == nullptr) << t.name << ": rows or open";
    std::set<std::string> seen;
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      const Column& col = t.columns[c];
      EXPECT_TRUE(seen.insert(col.name).second) << t.name << "." << col.name;
      EXPECT_FALSE(col.description.empty()) << t.name << "." << col.name;
      EXPECT_NE(col.get, nullptr) << t.name << "." << col.name;
      if (c != 0) {
        EXPECT_LT(t.columns[c - 1].name, col.name) << t.name;
      }
    }
  }
  EXPECT_EQ(find_table("log_entries"), nullptr);
  // The module's column counts: 118 host, 92 service, 26 host group and 19 service group columns.
  EXPECT_EQ(table("hosts").columns.size(), 118u);
  EXPECT_EQ(table("services").columns.size(), 92u + 118u);
  EXPECT_EQ(table("servicesbygroup").columns.size(), 92u + 118u + 19u);
  EXPECT_EQ(table("servicesbyhostgroup").columns.size(), 92u + 118u + 26u);
  EXPECT_EQ(table("hostsbygroup").columns.size(), 118u + 26u);
  EXPECT_EQ(table("hostgroups").columns.size(), 26u);
  EXPECT_EQ(table("servicegroups").columns.size(), 19u);
  EXPECT_EQ(table("comments").columns.size(), 11u + 118u + 92u);
  // 15 of its own, and the current host's, service's (without host_*), contact's and command's.
  EXPECT_EQ(table("log").columns.size(), 15u + 118u + 92u + 26u + 3u);
  EXPECT_EQ(table("statehist").columns.size(), 29u + 118u + 92u);
  EXPECT_EQ(table("downtimes").columns.size(), 11u + 118u + 92u);
  EXPECT_EQ(table("status").columns.size(), 41u);
  EXPECT_EQ(table("contacts").columns.size(), 26u);
  EXPECT_EQ(table("timeperiods").columns.size(), 11u);
}

TEST_F(LivestatusTables, ColumnNamesMayCarryTheTablePrefix) {
  EXPECT_EQ(table("services").find("service_state"), table("services").find("state"));
  EXPECT_EQ(table("hosts").find("host_name"), table("hosts").find("name"));
  EXPECT_EQ(table("hostsbygroup").find("host_name"), table("hostsbygroup").find("name"));
  EXPECT_EQ(table("hostgroups").find("hostgroup_members"), table("hostgroups").find("members"));
  EXPECT_NE(table("services").find("host_name"), nullptr);
  EXPECT_EQ(table("services").find("nope"), nullptr);
  EXPECT_EQ(table("services").find("service_nope"), nullptr);
}

TEST_F(LivestatusTables, HostsInNaemonOrderWithTheirState) {
  engine::HostState& web = hosts_[host("web")];
  web.current_state = 1;
  web.state_type = engine::StateType::soft;
  web.has_been_checked = true;
  web.last_check = 1700000200;
  web.plugin_output = "PING CRITICAL";
  web.long_plugin_output = "line 2\\nline 3";
  web.perf_data = "rta=5ms";
  web.problem_has_been_acknowledged = true;
  web.acknowledgement_type = 2;
  web.set_enabled(state::Flag::notifications, false);
  web.modified_attributes = state::k_modattr_notifications_enabled | state::k_modattr_check_command;
  const View& v = view();

  EXPECT_EQ(column(v, "hosts", "name"), "db|web");
  EXPECT_EQ(column(v, "hosts", "id"), "0|1");
  const Row w{host("web"), 0};
  EXPECT_EQ(read(v, "hosts", "state", w), "1");
  EXPECT_EQ(read(v, "hosts", "state_type", w), "0");
  EXPECT_EQ(read(v, "hosts", "hard_state", w), "0");
  EXPECT_EQ(read(v, "hosts", "has_been_checked", w), "1");
  EXPECT_EQ(read(v, "hosts", "plugin_output", w), "PING CRITICAL");
  EXPECT_EQ(read(v, "hosts", "long_plugin_output", w), "line 2\\nline 3");
  EXPECT_EQ(read(v, "hosts", "perf_data", w), "rta=5ms");
  EXPECT_EQ(read(v, "hosts", "acknowledged", w), "1");
  EXPECT_EQ(read(v, "hosts", "acknowledgement_type", w), "2");
  EXPECT_EQ(read(v, "hosts", "notifications_enabled", w), "0");
  EXPECT_EQ(read(v, "hosts", "active_checks_enabled", w), "1");
  EXPECT_EQ(read(v, "hosts", "modified_attributes", w), "513");
  EXPECT_EQ(read(v, "hosts", "modified_attributes_list", w), "[notifications_enabled,check_command]");
  EXPECT_EQ(read(v, "hosts", "last_check", w), "1700000200");
  EXPECT_EQ(read(v, "hosts", "last_update", w), "1700000200");
  EXPECT_EQ(read(v, "hosts", "last_update", Row{host("db"), 0}), "1700000000");
  EXPECT_EQ(read(v, "hosts", "alias", w), "Web server");
  EXPECT_EQ(read(v, "hosts", "address", w), "10.0.0.1");
  EXPECT_EQ(read(v, "hosts", "display_name", w), "web");
  EXPECT_EQ(read(v, "hosts", "check_command", w), "check_ping!100");
  EXPECT_EQ(read(v, "hosts", "check_period", w), "24x7");
  EXPECT_EQ(read(v, "hosts", "notification_period", w), "none");
  EXPECT_EQ(read(v, "hosts", "max_check_attempts", w), "3");
  EXPECT_EQ(read(v, "hosts", "total_services", w), "2");
  EXPECT_EQ(read(v, "hosts", "should_be_scheduled", w), "1");
  // (now - last_check) / (check_interval * interval_length) = 100 / 300.
  EXPECT_EQ(read(v, "hosts", "staleness", w), std::to_string(100.0 / 300.0));
  EXPECT_EQ(read(v, "hosts", "pnpgraph_present", w), "-1");
  EXPECT_EQ(read(v, "hosts", "in_check_period", w), "1");
  EXPECT_EQ(read(v, "hosts", "in_notification_period", w), "0");
  EXPECT_EQ(read(v, "hosts", "in_notification_period", Row{host("db"), 0}), "1");
}

TEST_F(LivestatusTables, HostListsComeInNaemonsOrder) {
  const View& v = view();
  const Row w{host("web"), 0};
  const Row d{host("db"), 0};
  // Direct contacts and contact group members, by name.
  EXPECT_EQ(read(v, "hosts", "contacts", w), "[admin,alice]");
  EXPECT_EQ(read(v, "hosts", "contacts", d), "[bob]");
  EXPECT_EQ(read(v, "hosts", "contact_groups", w), "[ops]");
  // Naemon prepends: the group registered last (by name) comes first; host services by description, last
  // first.
  EXPECT_EQ(read(v, "hosts", "groups", w), "[webs,all]");
  EXPECT_EQ(read(v, "hosts", "services", w), "[PING,HTTP]");
  EXPECT_EQ(read(v, "hosts", "services_with_state", w), "[[PING,0,0],[HTTP,0,0]]");
  EXPECT_EQ(read(v, "hosts", "parents", d), "[web]");
  EXPECT_EQ(read(v, "hosts", "childs", w), "[db]");
  EXPECT_EQ(read(v, "hosts", "parents", w), "[]");
}

TEST_F(LivestatusTables, CustomVariablesAndMacros) {
  const View& v = view();
  const Row w{host("web"), 0};
  EXPECT_EQ(read(v, "hosts", "custom_variable_names", w), "[OS,FILENAME]");
  EXPECT_EQ(read(v, "hosts", "custom_variable_values", w), "[linux,/etc/web.cfg]");
  EXPECT_EQ(read(v, "hosts", "custom_variables", w), "[OS=linux,FILENAME=/etc/web.cfg]");
  EXPECT_EQ(read(v, "hosts", "filename", w), "/etc/web.cfg");
  EXPECT_EQ(read(v, "hosts", "notes_url_expanded", w), "http://wiki/web/10.0.0.1/linux/$NOPE$");
  EXPECT_EQ(read(v, "services", "action_url_expanded", Row{service("web", "HTTP"), 0}), "/pnp/web/HTTP");
  EXPECT_EQ(read(v, "services", "custom_variables", Row{service("web", "HTTP"), 0}), "[PORT=80]");

  settings_.hidden_custom_var_prefix = "FILE";
  EXPECT_EQ(read(v, "hosts", "custom_variable_names", w), "[OS]");
}

TEST_F(LivestatusTables, PnpGraphsUnderPnpPath) {
  loaded_.dir.write("pnp/web/_HOST_.xml", "x");
  loaded_.dir.write("pnp/web/HTTP.xml", "x");
  settings_.pnp_path = loaded_.dir.file("pnp") + "/";
  const View& v = view();
  EXPECT_EQ(column(v, "hosts", "pnpgraph_present"), "0|1");
  EXPECT_EQ(column(v, "services", "pnpgraph_present"), "0|1|0");
}

TEST_F(LivestatusTables, ServicesCarryTheirHostsColumns) {
  engine::ServiceState& http = services_[service("web", "HTTP")];
  http.current_state = 2;
  http.last_hard_state = 2;
  http.has_been_checked = true;
  http.plugin_output = "HTTP CRITICAL";
  engine::ServiceState& ping = services_[service("web", "PING")];
  ping.current_state = 1;
  ping.has_been_checked = true;
  hosts_[host("web")].current_state = 1;
  ASSERT_TRUE(downtime_book_
                  .load(engine::DowntimeTarget::of_service(model().host_by_name.at("web"),
                                                           model().find_service("web", "HTTP")),
                        {.is_service = true,
                         .host_name = "web",
                         .service_description = "HTTP",
                         .downtime_id = 1,
                         .start_time = 1700000000,
                         .end_time = 1700003600,
                         .fixed = true,
                         .is_in_effect = true})
                  .ok());
  const View& v = view();

  EXPECT_EQ(column(v, "services", "description"), "MySQL|HTTP|PING");
  EXPECT_EQ(column(v, "services", "host_name"), "db|web|web");
  EXPECT_EQ(column(v, "services", "id"), "0|1|2");
  const Row h{service("web", "HTTP"), 0};
  EXPECT_EQ(read(v, "services", "state", h), "2");
  EXPECT_EQ(read(v, "services", "host_state", h), "1");
  EXPECT_EQ(read(v, "services", "host_address", h), "10.0.0.1");
  EXPECT_EQ(read(v, "services", "host_alias", h), "Web server");
  EXPECT_EQ(read(v, "services", "host_services", h), "[PING,HTTP]");
  EXPECT_EQ(read(v, "services", "plugin_output", h), "HTTP CRITICAL");
  EXPECT_EQ(read(v, "services", "scheduled_downtime_depth", h), "1");
  EXPECT_EQ(read(v, "services", "scheduled_downtime_depth", Row{service("web", "PING"), 0}), "0");
  EXPECT_EQ(read(v, "services", "contacts", h), "[admin]");
  // PING has no contacts of its own and takes its host's.
  EXPECT_EQ(read(v, "services", "contacts", Row{service("web", "PING"), 0}), "[admin,alice]");
  EXPECT_EQ(read(v, "services", "groups", h), "[frontend]");
  EXPECT_EQ(read(v, "services", "check_command", h), "check_ping!80");

  const Row w{host("web"), 0};
  EXPECT_EQ(read(v, "hosts", "num_services", w), "2");
  EXPECT_EQ(read(v, "hosts", "num_services_crit", w), "1");
  EXPECT_EQ(read(v, "hosts", "num_services_warn", w), "1");
  EXPECT_EQ(read(v, "hosts", "num_services_ok", w), "0");
  EXPECT_EQ(read(v, "hosts", "num_services_pending", w), "0");
  EXPECT_EQ(read(v, "hosts", "num_services_hard_crit", w), "1");
  EXPECT_EQ(read(v, "hosts", "num_services_hard_ok", w), "1");
  EXPECT_EQ(read(v, "hosts", "worst_service_state", w), "2");
  EXPECT_EQ(read(v, "hosts", "services_with_info", w), "[[PING,1,1,],[HTTP,2,1,HTTP CRITICAL]]");
}

TEST_F(LivestatusTables, GroupsAndByGroupTables) {
  services_[service("db", "MySQL")].current_state = 3;
  services_[service("db", "MySQL")].has_been_checked = true;
  hosts_[host("db")].current_state = 1;
  hosts_[host("db")].has_been_checked = true;
  const View& v = view();

  EXPECT_EQ(column(v, "hostgroups", "name"), "all|webs");
  EXPECT_EQ(column(v, "hostgroups", "members"), "[db,web]|[web]");
  EXPECT_EQ(column(v, "hostgroups", "members_with_state"), "[[db,1,1],[web,0,0]]|[[web,0,0]]");
  EXPECT_EQ(column(v, "hostgroups", "num_hosts"), "2|1");
  EXPECT_EQ(column(v, "hostgroups", "num_hosts_down"), "1|0");
  EXPECT_EQ(column(v, "hostgroups", "num_hosts_pending"), "1|1");
  EXPECT_EQ(column(v, "hostgroups", "worst_host_state"), "1|0");
  EXPECT_EQ(column(v, "hostgroups", "num_services"), "3|2");
  EXPECT_EQ(column(v, "hostgroups", "num_services_unknown"), "1|0");
  EXPECT_EQ(column(v, "hostgroups", "worst_service_state"), "3|0");

  // Members as Naemon lists them (the model's listed_members).
  EXPECT_EQ(column(v, "servicegroups", "members"), "[[db,MySQL],[web,HTTP]]");
  EXPECT_EQ(column(v, "servicegroups", "members_with_state"), "[[db,MySQL,3,1],[web,HTTP,0,0]]");
  EXPECT_EQ(column(v, "servicegroups", "num_services"), "2");
  EXPECT_EQ(column(v, "servicegroups", "num_services_unknown"), "1");
  EXPECT_EQ(column(v, "servicegroups", "num_services_pending"), "1");

  EXPECT_EQ(column(v, "contactgroups", "name"), "dba|ops");
  EXPECT_EQ(column(v, "contactgroups", "members"), "[bob]|[admin,alice]");

  EXPECT_EQ(column(v, "hostsbygroup", "hostgroup_name"), "all|all|webs");
  EXPECT_EQ(column(v, "hostsbygroup", "name"), "db|web|web");
  EXPECT_EQ(column(v, "servicesbygroup", "servicegroup_name"), "frontend|frontend");
  EXPECT_EQ(column(v, "servicesbygroup", "description"), "MySQL|HTTP");
  EXPECT_EQ(column(v, "servicesbygroup", "host_name"), "db|web");
  EXPECT_EQ(column(v, "servicesbyhostgroup", "hostgroup_name"), "all|all|all|webs|webs");
  EXPECT_EQ(column(v, "servicesbyhostgroup", "description"), "MySQL|PING|HTTP|PING|HTTP");
}

// naemon-livestatus answers a services query from a host's or a group's own list when the request has a
// top-level `host_name =`, `groups >=` or `host_groups >=` filter, and a host lists its services last
// description first: without Sort:, the order shows (Thruk's queries, scripts/livestatus_diff.py).
TEST_F(LivestatusTables, ServicesInTheOrderOfTheModulesIndex) {
  const View& v = view();
  const std::string columns = "GET services\nColumns: host_name description\n";
  EXPECT_EQ(ask(v, columns), "db;MySQL\nweb;HTTP\nweb;PING\n");
  EXPECT_EQ(ask(v, columns + "Filter: host_name = web\n"), "web;PING\nweb;HTTP\n");
  EXPECT_EQ(ask(v, columns + "Filter: service_host_name = web\nLimit: 1\n"), "web;PING\n");
  EXPECT_EQ(ask(v, columns + "Filter: host_name = nosuch\n"), "");
  EXPECT_EQ(ask(v, columns + "Filter: host_groups >= all\n"), "db;MySQL\nweb;PING\nweb;HTTP\n");
  EXPECT_EQ(ask(v, columns + "Filter: host_groups >= all\nFilter: host_name = web\n"),
            "web;PING\nweb;HTTP\n");
  EXPECT_EQ(ask(v, columns + "Filter: groups >= frontend\nFilter: host_groups >= all\n"),
            "db;MySQL\nweb;HTTP\n");
  // Combined, negated or of another operator, a filter is no index: the table's order.
  EXPECT_EQ(ask(v, columns + "Filter: host_name = web\nFilter: state = 0\nAnd: 2\n"), "web;HTTP\nweb;PING\n");
  EXPECT_EQ(ask(v, columns + "Filter: host_name = web\nNegate:\nNegate:\n"), "web;HTTP\nweb;PING\n");
  EXPECT_EQ(ask(v, columns + "Filter: host_name =~ WEB\n"), "web;HTTP\nweb;PING\n");
  EXPECT_EQ(ask(v, columns + "Filter: host_name != db\n"), "web;HTTP\nweb;PING\n");
  // Sort: decides over the index, with the natural order after it.
  EXPECT_EQ(ask(v, columns + "Filter: host_name = web\nSort: host_name asc\n"), "web;HTTP\nweb;PING\n");
  // The by-group tables walk their groups whatever the filter.
  EXPECT_EQ(ask(v, "GET servicesbyhostgroup\nColumns: description\nFilter: host_name = web\n"),
            "PING\nHTTP\nPING\nHTTP\n");
}

TEST_F(LivestatusTables, ContactsWithTheirRunTimeState) {
  std::vector<state::ContactState> contacts = state::initial_contact_states(model());
  contacts[contact("bob")].host_notifications_enabled = false;
  contacts[contact("bob")].modified_attributes = state::k_modattr_notifications_enabled;
  contacts_ = std::make_shared<const std::vector<state::ContactState>>(std::move(contacts));
  const View& v = view();

  EXPECT_EQ(column(v, "contacts", "name"), "admin|alice|bob");
  EXPECT_EQ(column(v, "contacts", "host_notifications_enabled"), "1|1|0");
  EXPECT_EQ(column(v, "contacts", "modified_attributes"), "0|0|1");
  EXPECT_EQ(column(v, "contacts", "groups"), "[ops]|[ops]|[dba]");
  EXPECT_EQ(column(v, "contacts", "in_service_notification_period"), "1|0|1");
  EXPECT_EQ(column(v, "contacts", "service_notification_period"), "24x7|none|24x7");
  const Row admin{contact("admin"), 0};
  EXPECT_EQ(read(v, "contacts", "email", admin), "admin@example.com");
  EXPECT_EQ(read(v, "contacts", "alias", admin), "Administrator");
  EXPECT_EQ(read(v, "contacts", "custom_variables", admin), "[PAGER=555]");
  // Naemon prepends each command of the directive.
  EXPECT_EQ(read(v, "contacts", "host_notification_commands", admin), "[notify_sms,notify_mail]");
}

TEST_F(LivestatusTables, CommentsAndDowntimesById) {
  comments_ = std::make_shared<const std::vector<files::StatusComment>>(std::vector<files::StatusComment>{
      {.is_service = true,
       .host_name = "web",
       .service_description = "HTTP",
       .entry_type = 1,
       .comment_id = 7,
       .source = 1,
       .entry_time = 1700000010,
       .author = "alice",
       .comment_data = "looking"},
      {.is_service = false,
       .host_name = "db",
       .entry_type = 4,
       .comment_id = 3,
       .entry_time = 1700000020,
       .author = "bob",
       .comment_data = "acked"},
      {.is_service = false, .host_name = "gone", .comment_id = 5, .author = "x", .comment_data = "orphan"},
  });
  downtimes_ = std::make_shared<const std::vector<files::StatusDowntime>>(std::vector<files::StatusDowntime>{
      {.is_service = false,
       .host_name = "web",
       .downtime_id = 9,
       .start_time = 1700000000,
       .end_time = 1700003600,
       .fixed = true,
       .duration = 3600,
       .author = "admin",
       .comment = "maint"},
  });
  const View& v = view();

  EXPECT_EQ(column(v, "comments", "id"), "3|5|7");
  EXPECT_EQ(column(v, "comments", "host_name"), "db||web");
  EXPECT_EQ(column(v, "comments", "service_description"), "||HTTP");
  EXPECT_EQ(column(v, "comments", "type"), "1|1|2");
  EXPECT_EQ(column(v, "comments", "is_service"), "0|0|1");
  EXPECT_EQ(column(v, "comments", "source"), "0|0|1");
  EXPECT_EQ(column(v, "comments", "service_contacts"), "[]|[]|[admin]");
  EXPECT_EQ(column(v, "downtimes", "id"), "9");
  EXPECT_EQ(column(v, "downtimes", "type"), "2");
  EXPECT_EQ(column(v, "downtimes", "host_address"), "10.0.0.1");

  EXPECT_EQ(read(v, "hosts", "comments", Row{host("db"), 0}), "[3]");
  EXPECT_EQ(read(v, "hosts", "comments", Row{host("web"), 0}), "[]");
  EXPECT_EQ(read(v, "services", "comments", Row{service("web", "HTTP"), 0}), "[7]");
  EXPECT_EQ(read(v, "services", "comments_with_info", Row{service("web", "HTTP"), 0}),
            "[[7,alice,looking,1700000010,1,0,0]]");
  EXPECT_EQ(read(v, "hosts", "downtimes", Row{host("web"), 0}), "[9]");
  EXPECT_EQ(read(v, "hosts", "downtimes_with_info", Row{host("web"), 0}),
            "[[9,admin,maint,0,1700000000,1700003600,1,3600,0]]");
  EXPECT_EQ(read(v, "services", "host_downtimes", Row{service("web", "PING"), 0}), "[9]");
}

TEST_F(LivestatusTables, AuthUserSeesWhatItIsContactOf) {
  const View& v = view();
  const std::uint32_t alice = contact("alice");
  const std::uint32_t bob = contact("bob");
  EXPECT_EQ(visible(v, "hosts", "name", alice), "web");
  EXPECT_EQ(visible(v, "hosts", "name", bob), "db");
  EXPECT_EQ(visible(v, "hosts", "name", k_unknown_auth_user), "");
  // Loose: a service's or its host's contacts.
  EXPECT_EQ(visible(v, "services", "description", alice), "HTTP|PING");
  EXPECT_EQ(visible(v, "services", "description", bob), "MySQL");
  settings_.service_authorization = Authorization::strict;
  EXPECT_EQ(visible(v, "services", "description", alice), "PING");
  settings_.service_authorization = Authorization::loose;

  // Strict groups: every member; loose: any.
  EXPECT_EQ(visible(v, "hostgroups", "name", alice), "webs");
  settings_.group_authorization = Authorization::loose;
  EXPECT_EQ(visible(v, "hostgroups", "name", alice), "all|webs");
  EXPECT_EQ(visible(v, "servicegroups", "name", alice), "frontend");
  settings_.group_authorization = Authorization::strict;
  EXPECT_EQ(visible(v, "servicegroups", "name", alice), "");
  EXPECT_EQ(visible(v, "contacts", "name", alice), "admin|alice|bob");  // no filter, as in the module
  EXPECT_EQ(table("contacts").visible, nullptr);

  // List and counter columns show only what the AuthUser sees.
  view_.auth_user = alice;
  EXPECT_EQ(read(v, "hostgroups", "members", Row{model::index(model().hostgroup_by_name.at("all")), 0}),
            "[web]");
  EXPECT_EQ(read(v, "hostgroups", "num_services", Row{model::index(model().hostgroup_by_name.at("all")), 0}),
            "2");
  EXPECT_EQ(read(v, "hosts", "childs", Row{host("web"), 0}), "[]");
  settings_.service_authorization = Authorization::strict;
  EXPECT_EQ(read(v, "hosts", "services", Row{host("web"), 0}), "[PING]");
  EXPECT_EQ(read(v, "hosts", "num_services", Row{host("web"), 0}), "1");
}

TEST_F(LivestatusTables, WaitObjectsAsTheModuleParsesThem) {
  const View& v = view();
  Row r;
  ASSERT_TRUE(table("hosts").find_row(v, "web", r));
  EXPECT_EQ(r.index, host("web"));
  EXPECT_FALSE(table("hosts").find_row(v, "nope", r));
  ASSERT_TRUE(table("services").find_row(v, "web;HTTP", r));
  EXPECT_EQ(r.index, service("web", "HTTP"));
  ASSERT_TRUE(table("services").find_row(v, "db MySQL", r));
  EXPECT_EQ(r.index, service("db", "MySQL"));
  ASSERT_TRUE(table("services").find_row(v, "web;PING  ", r));
  EXPECT_EQ(r.index, service("web", "PING"));
  EXPECT_FALSE(table("services").find_row(v, "web;NOPE", r));
  EXPECT_FALSE(table("services").find_row(v, "web", r));
  ASSERT_TRUE(table("hostgroups").find_row(v, "webs", r));
  EXPECT_EQ(r.index, model::index(model().hostgroup_by_name.at("webs")));
  ASSERT_TRUE(table("servicegroups").find_row(v, "frontend", r));
  ASSERT_TRUE(table("contacts").find_row(v, "bob", r));
  EXPECT_EQ(r.index, contact("bob"));
  ASSERT_TRUE(table("contactgroups").find_row(v, "ops", r));
  EXPECT_EQ(table("hostsbygroup").find_row, nullptr);
  EXPECT_EQ(table("commands").find_row, nullptr);
}

TEST_F(LivestatusTables, StatusCommandsTimeperiodsAndColumns) {
  counters_.requests = 30;
  counters_.connections = 3;
  const View& v = view();
  EXPECT_EQ(column(v, "status", "program_version"), "1.4.1");
  EXPECT_EQ(column(v, "status", "livestatus_version"), "1.5.1-naemon") << "what Thruk's version gates accept";
  EXPECT_EQ(column(v, "status", "nagios_pid"), "4242");
  EXPECT_EQ(column(v, "status", "program_start"), "1700000000");
  EXPECT_EQ(column(v, "status", "num_hosts"), "2");
  EXPECT_EQ(column(v, "status", "num_services"), "3");
  EXPECT_EQ(column(v, "status", "requests"), "30");
  EXPECT_EQ(column(v, "status", "connections"), "3");
  EXPECT_EQ(column(v, "status", "requests_rate"), std::to_string(30.0 / 300.0));
  EXPECT_EQ(column(v, "status", "interval_length"), "60");
  EXPECT_EQ(column(v, "status", "enable_notifications"), "1");

  EXPECT_EQ(column(v, "commands", "name"), "check_ping|notify_mail|notify_sms");
  EXPECT_EQ(column(v, "commands", "line"), "/bin/true $ARG1$|/bin/true|/bin/true");
  EXPECT_EQ(column(v, "timeperiods", "name"), "24x7|none");
  EXPECT_EQ(column(v, "timeperiods", "in"), "1|0");
  EXPECT_EQ(column(v, "timeperiods", "days"),
            "[[0,86400],[0,86400],[0,86400],[0,86400],[0,86400],[0,86400],[0,86400]]|[[],[],[],[],[],[],[]]");

  std::size_t expected = 0;
  for (const Table* t : all_tables()) expected += t->columns.size();
  const std::vector<Row> columns = rows(v, "columns");
  EXPECT_EQ(columns.size(), expected);
  std::size_t checked = 0;
  for (Row r : columns) {
    if (read(v, "columns", "table", r) != "hosts") continue;
    const std::string name = read(v, "columns", "name", r);
    if (name == "name") {
      EXPECT_EQ(read(v, "columns", "type", r), "string");
      EXPECT_EQ(read(v, "columns", "description", r), "Host name");
      ++checked;
    } else if (name == "last_check" || name == "num_services") {
      EXPECT_EQ(read(v, "columns", "type", r), "int");  // the module calls its time columns int
      ++checked;
    } else if (name == "custom_variables") {
      EXPECT_EQ(read(v, "columns", "type", r), "dict");
      ++checked;
    }
  }
  EXPECT_EQ(checked, 4u);
}

TEST_F(LivestatusTables, IndexIsSharedAcrossSnapshotsOfOneModel) {
  const View& first = view();
  const std::shared_ptr<const TableIndex> a = make_table_index(first.status);
  const std::shared_ptr<const files::StatusSnapshot> keep = first.status;
  View& second = view();
  const std::shared_ptr<const TableIndex> b = make_table_index(second.status, a.get());
  EXPECT_EQ(a->model_part, b->model_part);    // same model, same keep_alive
  EXPECT_EQ(a->extras_part, b->extras_part);  // same comment and downtime lists
  EXPECT_NE(make_table_index(second.status)->model_part, b->model_part);
  second.index = b;
  EXPECT_EQ(read(second, "hosts", "contacts", Row{host("web"), 0}), "[admin,alice]");
  EXPECT_EQ(second.index, b);  // the server's index was used, not rebuilt
  // An earlier snapshot's index serves as long as the model and the lists are the same.
  second.index = a;
  EXPECT_EQ(read(second, "hosts", "groups", Row{host("web"), 0}), "[webs,all]");
  EXPECT_EQ(second.index, a);
  // Other lists: the View builds its own, with the same model part.
  comments_ = std::make_shared<const std::vector<files::StatusComment>>();
  View& third = view();
  third.index = a;
  EXPECT_EQ(read(third, "hosts", "comments", Row{host("web"), 0}), "[]");
  EXPECT_NE(third.index, a);
  EXPECT_EQ(third.index->model_part, a->model_part);
  EXPECT_NE(third.index->extras_part, a->extras_part);
}

}  // namespace
}  // namespace vedette::livestatus
