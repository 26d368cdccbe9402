// The comments and downtimes tables: the snapshot's comment and downtime blocks by id, each with the
// columns of its host (host_*) and service (service_*).
#include "livestatus/tables/tables_internal.hpp"

namespace vedette::livestatus::tables {
namespace {

using T = ColumnType;

const files::StatusComment& comment_of(const View& v, Row r) {
  return extras_index(v).comments[r.index];
}
const files::StatusDowntime& downtime_of(const View& v, Row r) {
  return extras_index(v).downtimes[r.index];
}

// Rows are positions in the snapshot's comments (downtimes), by id.
void comment_rows(const View& v, std::vector<Row>& out) {
  if (v.status == nullptr || v.status->model == nullptr) return;
  for (std::uint32_t at : extras_index(v).comment_order) out.push_back(Row{at, 0});
}
void downtime_rows(const View& v, std::vector<Row>& out) {
  if (v.status == nullptr || v.status->model == nullptr) return;
  for (std::uint32_t at : extras_index(v).downtime_order) out.push_back(Row{at, 0});
}

Row checked_host(const View& v, std::uint32_t host) {
  return Row{host != k_none && host < v.status->hosts.size() ? host : k_no_row, 0};
}
Row checked_service(const View& v, std::uint32_t service) {
  return Row{service != k_none && service < v.status->services.size() ? service : k_no_row, 0};
}
Row comment_host(const View& v, Row r) {
  return checked_host(v, extras_index(v).comment_host[r.index]);
}
Row comment_service(const View& v, Row r) {
  return checked_service(v, extras_index(v).comment_service[r.index]);
}
Row downtime_host(const View& v, Row r) {
  return checked_host(v, extras_index(v).downtime_host[r.index]);
}
Row downtime_service(const View& v, Row r) {
  return checked_service(v, extras_index(v).downtime_service[r.index]);
}

// The module's is_authorized_for(): the service's contacts when the service exists, else the host's.
bool entry_visible(const View& v, Row host, Row service, std::uint32_t contact) {
  if (service.index != k_no_row) return service_visible(v, service.index, contact);
  if (host.index != k_no_row) return host_visible(v, host.index, contact);
  return contact == k_no_auth_user;
}
bool comment_visible(const View& v, Row r, std::uint32_t contact) {
  return entry_visible(v, comment_host(v, r), comment_service(v, r), contact);
}
bool downtime_visible(const View& v, Row r, std::uint32_t contact) {
  return entry_visible(v, downtime_host(v, r), downtime_service(v, r), contact);
}

template <auto Field>
void comment_string(const View& v, Row r, Cell& out) {
  out.set_string(comment_of(v, r).*Field);
}
template <auto Field>
void comment_int(const View& v, Row r, Cell& out) {
  out.set_int(static_cast<std::int64_t>(comment_of(v, r).*Field));
}
// Naemon's comment types: 1 host, 2 service.
void comment_type(const View& v, Row r, Cell& out) {
  out.set_int(comment_of(v, r).is_service ? 2 : 1);
}

template <auto Field>
void downtime_string(const View& v, Row r, Cell& out) {
  out.set_string(downtime_of(v, r).*Field);
}
template <auto Field>
void downtime_int(const View& v, Row r, Cell& out) {
  out.set_int(static_cast<std::int64_t>(downtime_of(v, r).*Field));
}
// The module shows Naemon's downtime type whatever its description says: 1 service, 2 host.
void downtime_type(const View& v, Row r, Cell& out) {
  out.set_int(downtime_of(v, r).is_service ? 1 : 2);
}

void add_object_columns(std::vector<Column>& columns, Column::RowMap host, Column::RowMap service) {
  ColumnAdder host_add(columns, "host_", host);
  add_host_columns(host_add);
  ColumnAdder service_add(columns, "service_", service);
  add_service_columns(service_add);
}

}  // namespace

// No wait objects, as in the module.
const Table& comments_table() {
  static const Table table = [] {
    using files::StatusComment;
    Table t;
    t.name = "comments";
    t.prefix = "comment_";
    t.natural_sort = {"service_description"};
    ColumnAdder add(t.columns);
    add("author", T::string, comment_string<&StatusComment::author>, "The contact that entered the comment");
    add("comment", T::string, comment_string<&StatusComment::comment_data>, "A comment text");
    add("id", T::integer, comment_int<&StatusComment::comment_id>, "The id of the comment");
    add("entry_time", T::time, comment_int<&StatusComment::entry_time>,
        "The time the entry was made as UNIX timestamp");
    add("type", T::integer, comment_type, "The type of the comment: 1 is host, 2 is service");
    add("is_service", T::integer, comment_int<&StatusComment::is_service>,
        "0, if this entry is for a host, 1 if it is for a service");
    add("persistent", T::integer, comment_int<&StatusComment::persistent>,
        "Whether this comment is persistent (0/1)");
    add("source", T::integer, comment_int<&StatusComment::source>,
        "The source of the comment (0 is internal and 1 is external)");
    add("entry_type", T::integer, comment_int<&StatusComment::entry_type>,
        "The type of the comment: 1 is user, 2 is downtime, 3 is flap and 4 is acknowledgement");
    add("expires", T::integer, comment_int<&StatusComment::expires>, "Whether this comment expires");
    add("expire_time", T::time, comment_int<&StatusComment::expire_time>,
        "The time of expiry of this comment as a UNIX timestamp");
    add_object_columns(t.columns, comment_host, comment_service);
    sort_columns(t.columns);
    t.rows = comment_rows;
    t.visible = comment_visible;
    return t;
  }();
  return table;
}

const Table& downtimes_table() {
  static const Table table = [] {
    using files::StatusDowntime;
    Table t;
    t.name = "downtimes";
    t.prefix = "downtime_";
    t.natural_sort = {"service_description"};
    ColumnAdder add(t.columns);
    add("author", T::string, downtime_string<&StatusDowntime::author>,
        "The contact that scheduled the downtime");
    add("comment", T::string, downtime_string<&StatusDowntime::comment>, "A comment text");
    add("id", T::integer, downtime_int<&StatusDowntime::downtime_id>, "The id of the downtime");
    add("entry_time", T::time, downtime_int<&StatusDowntime::entry_time>,
        "The time the entry was made as UNIX timestamp");
    add("type", T::integer, downtime_type, "The type of the downtime: 0 if it is active, 1 if it is pending");
    add("is_service", T::integer, downtime_int<&StatusDowntime::is_service>,
        "0, if this entry is for a host, 1 if it is for a service");
    add("start_time", T::time, downtime_int<&StatusDowntime::start_time>,
        "The start time of the downtime as UNIX timestamp");
    add("end_time", T::time, downtime_int<&StatusDowntime::end_time>,
        "The end time of the downtime as UNIX timestamp");
    add("fixed", T::integer, downtime_int<&StatusDowntime::fixed>,
        "A 1 if the downtime is fixed, a 0 if it is flexible");
    add("duration", T::integer, downtime_int<&StatusDowntime::duration>,
        "The duration of the downtime in seconds");
    add("triggered_by", T::integer, downtime_int<&StatusDowntime::triggered_by>,
        "The id of the downtime this downtime was triggered by or 0 if it was not triggered by another "
        "downtime");
    add_object_columns(t.columns, downtime_host, downtime_service);
    sort_columns(t.columns);
    t.rows = downtime_rows;
    t.visible = downtime_visible;
    return t;
  }();
  return table;
}

}  // namespace vedette::livestatus::tables
