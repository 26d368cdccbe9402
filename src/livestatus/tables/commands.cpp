// The commands table.
#include "livestatus/tables/tables_internal.hpp"

namespace vedette::livestatus::tables {
namespace {

const model::Command& command_of(const View& v, Row r) {
  return v.model().commands[r.index];
}

void id(const View& v, Row r, Cell& out) {
  out.set_int(model_index(v).command_rank[r.index]);
}
void name(const View& v, Row r, Cell& out) {
  out.set_string(command_of(v, r).name);
}
void line(const View& v, Row r, Cell& out) {
  out.set_string(command_of(v, r).compiled.line);
}

void command_rows(const View& v, std::vector<Row>& out) {
  if (v.status == nullptr || v.status->model == nullptr) return;
  const model::Model& m = v.model();
  for (std::size_t n = 0; n < m.commands.size(); ++n) out.push_back(Row{nth(m, m.by_name.commands, n), 0});
}

}  // namespace

void add_command_columns(ColumnAdder& add) {
  add("id", ColumnType::integer, id, "Command id");
  add("name", ColumnType::string, name, "The name of the command");
  add("line", ColumnType::string, line, "The shell command line");
}

// No AuthUser filter and no wait objects, as in the module.
const Table& commands_table() {
  static const Table table = [] {
    Table t;
    t.name = "commands";
    t.prefix = "command_";
    ColumnAdder add(t.columns);
    add_command_columns(add);
    sort_columns(t.columns);
    t.rows = command_rows;
    return t;
  }();
  return table;
}

}  // namespace vedette::livestatus::tables
