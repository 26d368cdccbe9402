// The Livestatus tables of naemon-livestatus (hosts, services, the groups, contacts, commands, timeperiods,
// comments, downtimes, status, columns), with its column names, types, descriptions and row order. Any
// thread: the tables are built once on first use and immutable afterwards; a query reads them over its View.
//
//   const Table* services = find_table("services");
//   auto index = make_table_index(snapshot, previous.get());  // server: once per snapshot, shared by queries
//   View view{.status = snapshot, .now = now, .settings = &settings, .index = index};
#pragma once

#include "livestatus/table.hpp"

#include <memory>
#include <span>
#include <string_view>

namespace vedette::files {
struct StatusSnapshot;
}  // namespace vedette::files

namespace vedette::livestatus {

struct TableIndex;

// nullptr: unknown table.
[[nodiscard]] const Table* find_table(std::string_view name);
// Every table, by name (the order of the module's columns table).
[[nodiscard]] std::span<const Table* const> all_tables();

// What the tables look up in a snapshot besides its arrays: Naemon's object ids and list orders, each
// object's contacts, comments and downtimes by object. The part that depends only on the model is taken
// over from `previous` when that was built for the same model (kept alive by the same keep_alive), and
// the comment and downtime part when the snapshot shares previous's comment and downtime lists, so a new
// snapshot of an unchanged configuration costs little (~25 ns against ~4 ms at 100k services,
// bench/livestatus/tables_bench.cpp). It depends on nothing else of the snapshot, so a View may use the
// index of an earlier snapshot of the same model and lists; given one of another model or lists, the tables
// build their own for that View. Any thread; the result is immutable.
[[nodiscard]] std::shared_ptr<const TableIndex> make_table_index(
    const std::shared_ptr<const files::StatusSnapshot>& snapshot, const TableIndex* previous = nullptr);

}  // namespace vedette::livestatus
