// The columns table: every column of every table, tables by name, columns by name, as the module lists them.
#include "livestatus/tables/tables_internal.hpp"

namespace vedette::livestatus::tables {
namespace {

// Rows: index = the column's position in its table, group = the table's position in all_tables().
const Column& column_of(Row r) {
  return all_tables()[r.group]->columns[r.index];
}

void table(const View&, Row r, Cell& out) {
  out.set_string(all_tables()[r.group]->name);
}
void name(const View&, Row r, Cell& out) {
  out.set_string(column_of(r).name);
}
void description(const View&, Row r, Cell& out) {
  out.set_string(column_of(r).description);
}
// The module reports its time columns as "int".
void type(const View&, Row r, Cell& out) {
  const ColumnType t = column_of(r).type;
  out.set_string(type_name(t == ColumnType::time ? ColumnType::integer : t));
}

void column_rows(const View&, std::vector<Row>& out) {
  const std::span<const Table* const> tables = all_tables();
  for (std::uint32_t t = 0; t < tables.size(); ++t)
    for (std::uint32_t c = 0; c < tables[t]->columns.size(); ++c) out.push_back(Row{c, t});
}

}  // namespace

const Table& columns_table() {
  static const Table table_ = [] {
    Table t;
    t.name = "columns";
    t.prefix = "column_";
    ColumnAdder add(t.columns);
    add("table", ColumnType::string, table, "The name of the table");
    add("name", ColumnType::string, name, "The name of the column within the table");
    add("description", ColumnType::string, description, "A description of the column");
    add("type", ColumnType::string, type, "The data type of the column (int, float, string, list)");
    sort_columns(t.columns);
    t.rows = column_rows;
    return t;
  }();
  return table_;
}

}  // namespace vedette::livestatus::tables
