// A small table for the query engine's tests: a few hosts held in a static vector, with a column of each
// type and of each Column::match, and helpers that parse, compile and run a request over it.
#pragma once

#include "livestatus/cell.hpp"
#include "livestatus/query.hpp"
#include "livestatus/request.hpp"
#include "livestatus/table.hpp"
#include "livestatus/view.hpp"
#include "model/model.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vedette::livestatus::testing {

struct TestHost {
  std::string name;
  int state = 0;
  double latency = 0;
  std::string output;
  std::int64_t last_check = 0;
  std::vector<std::string> groups;
  std::vector<std::pair<std::string, std::string>> vars;
  std::vector<std::tuple<std::string, int, int>> services;   // description, state, has_been_checked
  std::vector<std::pair<std::string, std::string>> members;  // host, service
  std::string perf_data;
  std::int64_t modified_attributes = 0;
  std::vector<std::uint32_t> contacts;  // who may see the host (AuthUser)
  std::vector<std::int64_t> comments;
};

inline std::vector<TestHost>& test_hosts() {
  static std::vector<TestHost> hosts;
  return hosts;
}

inline const TestHost& host_of(Row row) {
  return test_hosts()[row.index];
}

inline void modattr_names(std::int64_t mask, Cell& out) {
  static constexpr std::pair<std::int64_t, std::string_view> k_names[] = {
      {1, "notifications_enabled"}, {2, "active_checks_enabled"}, {4, "passive_checks_enabled"}};
  out.start_list();
  for (const auto& [bit, name] : k_names)
    if ((mask & bit) != 0) out.add(name);
}

inline Column column(std::string name, ColumnType type, Column::Getter get, Match match = Match::by_type) {
  Column c;
  c.name = std::move(name);
  c.description = "test";
  c.type = type;
  c.get = get;
  c.match = match;
  return c;
}

// Columns deliberately not in name order: the engine must list them by name for a query without Columns:.
inline Table make_test_table(std::string name, std::vector<std::string> natural_sort) {
  Table t;
  t.name = std::move(name);
  t.prefix = "host_";
  t.natural_sort = std::move(natural_sort);
  t.columns.push_back(
      column("state", ColumnType::integer, [](const View&, Row r, Cell& c) { c.set_int(host_of(r).state); }));
  t.columns.push_back(
      column("name", ColumnType::string, [](const View&, Row r, Cell& c) { c.set_string(host_of(r).name); }));
  t.columns.push_back(column("latency", ColumnType::floating,
                             [](const View&, Row r, Cell& c) { c.set_float(host_of(r).latency); }));
  t.columns.push_back(column("plugin_output", ColumnType::string,
                             [](const View&, Row r, Cell& c) { c.set_string(host_of(r).output); }));
  t.columns.push_back(column("last_check", ColumnType::time,
                             [](const View&, Row r, Cell& c) { c.set_int(host_of(r).last_check); }));
  t.columns.push_back(column("groups", ColumnType::list, [](const View&, Row r, Cell& c) {
    c.start_list();
    for (const std::string& g : host_of(r).groups) c.add(g);
  }));
  t.columns.push_back(column("custom_variables", ColumnType::dict, [](const View&, Row r, Cell& c) {
    c.start_dict();
    for (const auto& [k, v] : host_of(r).vars) c.add_pair(k, v);
  }));
  t.columns.push_back(column("services_with_state", ColumnType::list, [](const View&, Row r, Cell& c) {
    c.start_list();
    for (const auto& [d, s, checked] : host_of(r).services) {
      c.start_tuple();
      c.add(d);
      c.add(s);
      c.add(checked);
      c.end_tuple();
    }
  }));
  t.columns.push_back(column(
      "members", ColumnType::list,
      [](const View&, Row r, Cell& c) {
        c.start_list();
        for (const auto& [h, s] : host_of(r).members) {
          c.start_tuple();
          c.add(h);
          c.add(s);
          c.end_tuple();
        }
      },
      Match::host_service));
  t.columns.push_back(column("perf_data", ColumnType::string,
                             [](const View&, Row r, Cell& c) { c.set_string(host_of(r).perf_data); }));
  t.columns.push_back(column(
      "modified_attributes", ColumnType::integer,
      [](const View&, Row r, Cell& c) { c.set_int(host_of(r).modified_attributes); }, Match::attributes));
  t.columns.push_back(column(
      "modified_attributes_list", ColumnType::list,
      [](const View&, Row r, Cell& c) { modattr_names(host_of(r).modified_attributes, c); },
      Match::attributes));
  t.columns.push_back(column(
      "counter", ColumnType::integer, [](const View&, Row, Cell& c) { c.set_int(7); }, Match::none));
  t.columns.push_back(column(
      "days", ColumnType::list, [](const View&, Row, Cell& c) { c.start_list(); }, Match::never));
  t.columns.push_back(column("comments", ColumnType::list, [](const View&, Row r, Cell& c) {
    c.start_list();
    for (std::int64_t id : host_of(r).comments) c.add(id);
  }));
  t.columns.push_back(column("last_update", ColumnType::time, [](const View&, Row r, Cell& c) {
    c.set_float(static_cast<double>(host_of(r).last_check) + 0.25);
  }));
  t.rows = [](const View&, std::vector<Row>& out) {
    for (std::uint32_t i = 0; i < test_hosts().size(); ++i) out.push_back(Row{.index = i, .group = 0});
  };
  t.visible = [](const View&, Row r, std::uint32_t contact) {
    for (std::uint32_t c : host_of(r).contacts)
      if (c == contact) return true;
    return false;
  };
  t.find_row = [](const View&, std::string_view key, Row& out) {
    for (std::uint32_t i = 0; i < test_hosts().size(); ++i) {
      if (test_hosts()[i].name != key) continue;
      out = Row{.index = i, .group = 0};
      return true;
    }
    return false;
  };
  return t;
}

inline const Table& test_table() {
  static const Table table = make_test_table("hosts", {"name"});
  return table;
}
// The same columns without natural sort columns, so that ties show the module's heap order.
inline const Table& unsorted_table() {
  static const Table table = make_test_table("unsorted", {});
  return table;
}

inline const Table* test_lookup(std::string_view name) {
  if (name == "hosts") return &test_table();
  if (name == "unsorted") return &unsorted_table();
  return nullptr;
}

constexpr std::time_t k_now = 1'700'000'000;

// The hosts the tests share, and a model whose contacts are alice (0) and bob (1).
class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    test_hosts() = {
        TestHost{.name = "web",
                 .state = 0,
                 .latency = 0.5,
                 .output = "OK - all fine",
                 .last_check = 1000,
                 .groups = {"linux", "http"},
                 .vars = {{"OS", "linux"}, {"ROLE", "frontend"}},
                 .services = {{"PING", 0, 1}, {"HTTP", 2, 1}},
                 .members = {{"web", "PING"}, {"db", "PING"}},
                 .perf_data = "rta=1.5ms;100;200 pl=0%",
                 .modified_attributes = 3,
                 .contacts = {0},
                 .comments = {4, 9}},
        TestHost{.name = "db",
                 .state = 1,
                 .latency = 1.5,
                 .output = "WARNING - disk",
                 .last_check = 2000,
                 .groups = {"linux"},
                 .vars = {{"OS", "Linux"}},
                 .services = {{"PING", 1, 1}},
                 .members = {},
                 .perf_data = "rta=2.5ms;100;200 pl=10%",
                 .modified_attributes = 1,
                 .contacts = {0, 1},
                 .comments = {}},
        TestHost{.name = "mail",
                 .state = 2,
                 .latency = 2.0,
                 .output = "CRITICAL - \"down\"",
                 .last_check = 3000,
                 .groups = {},
                 .vars = {},
                 .services = {},
                 .members = {},
                 .perf_data = "",
                 .modified_attributes = 0,
                 .contacts = {1},
                 .comments = {}},
        TestHost{.name = "app",
                 .state = 0,
                 .latency = 0.0,
                 .output = "OK",
                 .last_check = 4000,
                 .groups = {"http"},
                 .vars = {{"OS", "windows"}},
                 .services = {},
                 .members = {},
                 .perf_data = "rta=0.5ms",
                 .modified_attributes = 4,
                 .contacts = {},
                 .comments = {}},
    };
    model_ = std::make_shared<model::Model>();
    model_->contact_by_name.emplace("alice", model::ContactId{0});
    model_->contact_by_name.emplace("bob", model::ContactId{1});
    auto snapshot = std::make_shared<files::StatusSnapshot>();
    snapshot->model = model_.get();
    view_.status = std::move(snapshot);
    view_.now = k_now;
  }

  // The body of a good answer, or "<code> <message>" of an error, whatever stage it comes from.
  std::string ask(std::string_view text, Query::Limits limits = {}) {
    Request request;
    RequestError error;
    if (!parse_request(text, request, error, &test_lookup, k_now))
      return std::to_string(error.code) + " " + error.message;
    std::optional<Query> query = Query::compile(request, *test_lookup(request.table), error);
    if (!query) return std::to_string(error.code) + " " + error.message;
    std::string body;
    const int code = query->run(view_, limits, body, error);
    if (code != 200) return std::to_string(code) + " " + error.message;
    return body;
  }

  std::shared_ptr<model::Model> model_;
  View view_;
};

}  // namespace vedette::livestatus::testing
