// A Livestatus table: its rows over a View and its columns, each a typed getter into a Cell. The query
// engine (query.hpp) knows nothing else about hosts or services; tables/ defines them all.
//
//   const Table* hosts = find_table("hosts");
//   std::vector<Row> rows;
//   hosts->rows(view, rows);
//   const Column* name = hosts->find("name");
//   name->read(view, rows[0], cell);
// A table read from files (log, statehist) has no `rows` but `open`, a RowCursor that hands out its rows
// one by one within the RowHints the query's filter allows, as the query asks for them: a query answered
// in pieces (server_queries.cpp) reads on where its last piece ended, and one that has enough stops asking.
// Tables are built once and then read-only: any query thread.
#pragma once

#include "livestatus/cell.hpp"

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vedette::livestatus {

struct View;

// A row of a table; what it holds is the table's business: an index into the snapshot, or a group and a
// member (hostsbygroup), or an index into a list the table built for this view.
struct Row {
  std::uint32_t index = 0;
  std::uint32_t group = 0;
};

// What a RowMap returns when the row has no such object (the service columns of a host comment, a
// downtime of a host that is gone): the column reads as its type's empty value, as the module's do.
inline constexpr std::uint32_t k_no_row = 0xFFFF'FFFFu;

// The types the `columns` table reports ("int", "float", "string", "list", "time", "dict", "blob").
enum class ColumnType : std::uint8_t { integer, floating, string, list, time, dict, blob };
[[nodiscard]] constexpr std::string_view type_name(ColumnType t) {
  switch (t) {
    case ColumnType::integer:
      return "int";
    case ColumnType::floating:
      return "float";
    case ColumnType::string:
      return "string";
    case ColumnType::list:
      return "list";
    case ColumnType::time:
      return "time";
    case ColumnType::dict:
      return "dict";
    case ColumnType::blob:
      return "blob";
  }
  return "string";
}

// How Filter:, Stats: and WaitCondition: headers test a column where the module departs from the rules of
// its type (see filter.hpp for those rules).
enum class Match : std::uint8_t {
  by_type,       // the rules of Column::type
  host_service,  // a list of tuples that start (host, service); the reference is "host|service"
                 // (servicegroups' members, services' parents and children)
  attributes,    // modified_attributes and modified_attributes_list: the reference is a number or names
                 // joined by ','; `~` asks for all its bits, `~~` for any. A list cell holds the names, and
                 // CSV separates them with the host/service separator, as the module prints that list
  never,         // no row matches, and a negated operator every row (timeperiods' days and exceptions)
  none,          // the column takes no filter: 400 "cannot create filter on table <name>" (status counters)
};

struct Column {
  using Getter = void (*)(const View& view, Row row, Cell& out);
  // Maps a row of the table to the row of another table whose getter this column reuses: a service row to
  // its host row for the host_* columns of services. Null: the getter reads the table's own row.
  using RowMap = Row (*)(const View& view, Row row);

  std::string name;
  std::string description;
  ColumnType type = ColumnType::string;
  Getter get = nullptr;
  RowMap map = nullptr;
  Match match = Match::by_type;

  void read(const View& view, Row row, Cell& out) const {
    out.clear();
    if (map != nullptr) {
      row = map(view, row);
      if (row.index == k_no_row) return set_empty(out);
    }
    get(view, row, out);
  }

 private:
  void set_empty(Cell& out) const {
    switch (type) {
      case ColumnType::integer:
      case ColumnType::time:
        return out.set_int(0);
      case ColumnType::floating:
        return out.set_float(0);
      case ColumnType::string:
      case ColumnType::blob:
        return out.set_string({});
      case ColumnType::list:
        return out.start_list();
      case ColumnType::dict:
        return out.start_dict();
    }
  }
};

// What a query's Filter: headers allow of the rows it may print, computed once by Query::compile so that a
// table can skip reading the others: every row the filter accepts has time_from <= `time` < time_until
// and its `class` among `classes` (bit c: class c; classes above 31 are not told apart). Wider than the
// filter, never narrower; a table ignores what it cannot use.
struct RowHints {
  std::int64_t time_from = std::numeric_limits<std::int64_t>::min();
  std::int64_t time_until = std::numeric_limits<std::int64_t>::max();
  std::uint32_t classes = 0xFFFF'FFFFu;
  // Whether the query holds rows after asking for the next one (Sort:, Stats: groups). Without, a table
  // that computes its rows (statehist) may reuse the memory of those handed out, so that a long answer
  // costs no more than its rows in flight.
  bool rows_kept = true;
  // The module's index filters (its findIndexFilter): the Filter: tests the request leaves at the top
  // level, not combined by And:, Or: or Negate:, in request order, that are `column = value` or (a list
  // column) `column >= value`. Every row the filter accepts passes each of them.
  struct IndexKey {
    const Column* column = nullptr;
    bool contains = false;  // >= on a list column; else = on a string column
    std::string value;
  };
  std::vector<IndexKey> index_keys;
};

// A table's rows in the table's order, handed out as asked for. A row stays valid while the cursor lives
// (or, when RowHints::rows_kept is false, until the next call of next()). One thread at a time.
class RowCursor {
 public:
  virtual ~RowCursor() = default;
  // False at the end of the rows, or when the query cannot be answered: then error_code() is not 0.
  [[nodiscard]] virtual bool next(Row& row) = 0;
  // The code and the module's message answered instead of the rows (statehist without a start time).
  [[nodiscard]] int error_code() const { return error_code_; }
  [[nodiscard]] const std::string& error_message() const { return error_message_; }

 protected:
  bool fail(int code, std::string message) {
    error_code_ = code;
    error_message_ = std::move(message);
    return false;
  }

 private:
  int error_code_ = 0;
  std::string error_message_;
};

struct Table {
  std::string name;
  // The module also takes a column name with this in front ("service_state" in services): its table's
  // name without its last letter, then '_' ("host_" for hosts and hostsbygroup, "service_" for services).
  std::string prefix;
  // A column name not found otherwise is looked up again with this in front: the module's log table takes
  // "host_name" for "current_host_name" when it has no column of that name. Empty: no second look.
  std::string fallback_prefix;
  std::vector<Column> columns;  // sorted by name, as the module lists them
  // Appends every row, in the order Naemon's livestatus lists them. Null for a table with `scan`.
  void (*rows)(const View& view, std::vector<Row>& out) = nullptr;
  // Before `rows`: when the request has an index filter the module uses for this table (a host's services,
  // a group's members), appends the rows of that object's list in its order and returns true. The module
  // walks those lists in an order of their own (a host's services last description first), which an
  // answer without Sort: shows. Null, or false: `rows`.
  bool (*indexed_rows)(const View& view, const RowHints& hints, std::vector<Row>& out) = nullptr;
  // Instead of `rows`: a cursor over the rows in the module's order, which may leave out rows `hints`
  // excludes. The cursor may keep what it read in the View (View::log_reading), so that a second cursor
  // over the same View hands out the same rows; it must not outlive the View.
  std::unique_ptr<RowCursor> (*open)(const View& view, const RowHints& hints) = nullptr;
  // AuthUser: whether the contact (an index into the model's contacts, or k_unknown_auth_user for a name
  // that is none) may see the row. The module shows an unknown user nothing but the log's lines of no
  // host or service; every other table answers false for k_unknown_auth_user. Null: every row.
  bool (*visible)(const View& view, Row row, std::uint32_t contact) = nullptr;
  // WaitObject: the row a key names ("name" for hosts and groups, "host;description" or "host description"
  // for services, as the module accepts them). Null: the table has no wait objects.
  bool (*find_row)(const View& view, std::string_view key, Row& out) = nullptr;
  // The columns the module sorts by after those of Sort: headers, and by which it orders the groups of a
  // Stats query (its addNatSort): {"name"} for hosts, {"host_name", "description"} for services. Empty:
  // ties keep the order of the module's heap, which the engine reproduces.
  std::vector<std::string> natural_sort;

  [[nodiscard]] const Column* find(std::string_view column) const {
    for (const Column& c : columns)
      if (c.name == column) return &c;
    if (!prefix.empty() && column.starts_with(prefix))
      if (const Column* c = find(column.substr(prefix.size()))) return c;
    if (fallback_prefix.empty()) return nullptr;
    const std::string with = fallback_prefix + std::string(column);
    for (const Column& c : columns)
      if (c.name == with) return &c;
    return nullptr;
  }
};

}  // namespace vedette::livestatus
