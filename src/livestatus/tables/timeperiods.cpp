// The timeperiods table.
#include "livestatus/tables/tables_internal.hpp"

namespace vedette::livestatus::tables {
namespace {

using T = ColumnType;
using timeperiod::DateRange;
using timeperiod::DateRangeType;

const model::Timeperiod& period_of(const View& v, Row r) {
  return v.model().timeperiods[r.index];
}

void id(const View& v, Row r, Cell& out) {
  out.set_int(model_index(v).timeperiod_rank[r.index]);
}
void name(const View& v, Row r, Cell& out) {
  out.set_string(period_of(v, r).name);
}
void alias(const View& v, Row r, Cell& out) {
  out.set_string(period_of(v, r).alias);
}

// Seven lists, Sunday first, of start, end, start, end, ... in seconds since midnight.
void days(const View& v, Row r, Cell& out) {
  out.start_list();
  for (const std::vector<timeperiod::TimeRange>& ranges : period_of(v, r).rules.weekdays) {
    out.start_tuple();
    for (const timeperiod::TimeRange& range : ranges) {
      out.add(static_cast<std::int64_t>(range.start));
      out.add(static_cast<std::int64_t>(range.end));
    }
    out.end_tuple();
  }
}

// The module writes each exception as a dictionary of its date fields, skip_interval and "times". A Cell
// holds no dictionary inside a list, so each comes as a list of the same values in the same order: the
// date fields of its type, skip_interval, then the times as start, end, start, end, ...
template <DateRangeType Type>
void exceptions(const View& v, Row r, Cell& out) {
  out.start_list();
  for (const DateRange& d : period_of(v, r).rules.exceptions[static_cast<std::size_t>(Type)]) {
    out.start_tuple();
    switch (Type) {
      case DateRangeType::calendar_date:
        for (int x : {d.syear, d.smon, d.smday, d.eyear, d.emon, d.emday}) out.add(x);
        break;
      case DateRangeType::month_date:
        for (int x : {d.smon, d.smday, d.emon, d.emday}) out.add(x);
        break;
      case DateRangeType::month_day:
        for (int x : {d.smday, d.emday}) out.add(x);
        break;
      case DateRangeType::month_week_day:
        for (int x : {d.smon, d.swday, d.swday_offset, d.emon, d.ewday, d.ewday_offset}) out.add(x);
        break;
      case DateRangeType::week_day:
        for (int x : {d.swday, d.swday_offset, d.ewday, d.ewday_offset}) out.add(x);
        break;
    }
    out.add(d.skip_interval);
    for (const timeperiod::TimeRange& range : d.ranges) {
      out.add(static_cast<std::int64_t>(range.start));
      out.add(static_cast<std::int64_t>(range.end));
    }
    out.end_tuple();
  }
}

// Naemon prepends each excluded period of the directive: the last named comes first.
void exclusions(const View& v, Row r, Cell& out) {
  const std::vector<model::TimeperiodId>& excluded = period_of(v, r).exclusions;
  out.start_list();
  for (auto it = excluded.rbegin(); it != excluded.rend(); ++it)
    out.add(v.model().timeperiods[model::index(*it)].name);
}

void in(const View& v, Row r, Cell& out) {
  out.set_int(in_period(v, model::TimeperiodId{r.index}) ? 1 : 0);
}

void timeperiod_rows(const View& v, std::vector<Row>& out) {
  if (v.status == nullptr || v.status->model == nullptr) return;
  const model::Model& m = v.model();
  for (std::size_t n = 0; n < m.timeperiods.size(); ++n)
    out.push_back(Row{nth(m, m.by_name.timeperiods, n), 0});
}

}  // namespace

// No AuthUser filter and no wait objects, as in the module.
const Table& timeperiods_table() {
  static const Table table = [] {
    Table t;
    t.name = "timeperiods";
    t.prefix = "timeperiod_";
    ColumnAdder add(t.columns);
    add("id", T::integer, id, "Timeperiod id");
    add("name", T::string, name, "The name of the timeperiod");
    add("alias", T::string, alias, "The alias of the timeperiod");
    add("days", T::list, days,
        "Time per days, as 7 lists (sun-sat) of a list of even number of elements, representing "
        "start,stop,start,stop... in seconds since midnight");
    add.match(Match::never);
    add("exceptions_calendar_dates", T::list, exceptions<DateRangeType::calendar_date>,
        "List of objects representing exceptions for DATERANGE_CALENDAR_DATE. For time ranges, see \"days\" "
        "column.");
    add.match(Match::never);
    add("exceptions_month_date", T::list, exceptions<DateRangeType::month_date>,
        "List of objects representing exceptions for DATERANGE_MONTH_DATE. For time ranges, see \"days\" "
        "column.");
    add.match(Match::never);
    add("exceptions_month_day", T::list, exceptions<DateRangeType::month_day>,
        "List of objects representing exceptions for DATERANGE_MONTH_DAY. For time ranges, see \"days\" "
        "column.");
    add.match(Match::never);
    add("exceptions_month_week_day", T::list, exceptions<DateRangeType::month_week_day>,
        "List of objects representing exceptions for DATERANGE_MONTH_WEEK_DAY. For time ranges, see \"days\" "
        "column.");
    add.match(Match::never);
    add("exceptions_week_day", T::list, exceptions<DateRangeType::week_day>,
        "List of objects representing exceptions for DATERANGE_WEEK_DAY. For time ranges, see \"days\" "
        "column.");
    add.match(Match::never);
    add("exclusions", T::list, exclusions, "Exclusions for this timeperiod");
    add("in", T::integer, in, "Whether we are currently in this period (0/1)");
    sort_columns(t.columns);
    t.rows = timeperiod_rows;
    return t;
  }();
  return table;
}

}  // namespace vedette::livestatus::tables
