// TableIndex: built once per snapshot (or taken over from the previous one), read by any query thread.
#include "livestatus/tables/tables_internal.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

namespace vedette::livestatus {
namespace tables {
namespace {

using Pairs = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

template <typename Id>
void fill_order(bool named, const std::vector<Id>& by_name, std::size_t count,
                std::vector<std::uint32_t>& order, std::vector<std::uint32_t>& rank) {
  order.resize(count);
  rank.resize(count);
  for (std::size_t n = 0; n < count; ++n) {
    order[n] = named ? model::index(by_name[n]) : static_cast<std::uint32_t>(n);
    rank[order[n]] = static_cast<std::uint32_t>(n);
  }
}

// One list per object: its ids (model indexes), ordered by their rank, ascending or (descending) as Naemon's
// prepended lists come out.
template <typename Object, typename Id>
void ranked_lists(const std::vector<Object>& objects, std::vector<Id> Object::*field,
                  const std::vector<std::uint32_t>& rank, bool descending, FlatLists& out) {
  std::vector<std::uint32_t> scratch;
  for (const Object& o : objects) {
    scratch.clear();
    for (Id id : o.*field) scratch.push_back(model::index(id));
    std::sort(scratch.begin(), scratch.end(), [&](std::uint32_t a, std::uint32_t b) {
      return descending ? rank[a] > rank[b] : rank[a] < rank[b];
    });
    for (std::uint32_t i : scratch) out.add(i);
    out.end_list();
  }
}

// The contact ranks of direct contacts and contact group members, sorted and unique.
void contact_ranks(const model::Model& m, const std::vector<model::ContactId>& contacts,
                   const std::vector<model::ContactgroupId>& groups, const std::vector<std::uint32_t>& rank,
                   std::vector<std::uint32_t>& out) {
  for (model::ContactId c : contacts) out.push_back(rank[model::index(c)]);
  for (model::ContactgroupId g : groups)
    for (model::ContactId c : m.contactgroups[model::index(g)].members) out.push_back(rank[model::index(c)]);
}

void sort_unique(std::vector<std::uint32_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// `pairs` (object, item): the items of each of `objects` objects, in the order of `pairs` (stable).
void lists_from_pairs(Pairs& pairs, std::size_t objects, FlatLists& out) {
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::size_t at = 0;
  for (std::uint32_t o = 0; o < objects; ++o) {
    for (; at < pairs.size() && pairs[at].first == o; ++at) out.add(pairs[at].second);
    out.end_list();
  }
}

void escalated_contacts(const model::Model& m, const model::EscalationRule& rule, std::uint32_t object,
                        const std::vector<std::uint32_t>& rank, Pairs& out) {
  std::vector<std::uint32_t> ranks;
  contact_ranks(m, rule.contacts, rule.contact_groups, rank, ranks);
  for (std::uint32_t r : ranks) out.emplace_back(object, r);
}

// Sorted and unique per object.
void unique_lists_from_pairs(Pairs& pairs, std::size_t objects, FlatLists& out) {
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  lists_from_pairs(pairs, objects, out);
}

std::shared_ptr<const ModelIndex> build_model_index(const files::StatusSnapshot& s) {
  auto mi = std::make_shared<ModelIndex>();
  const model::Model& m = *s.model;
  mi->model = &m;
  mi->keep_alive = s.keep_alive;
  const bool named = m.has_by_name();
  fill_order(named, m.by_name.hosts, m.hosts.size(), mi->host_order, mi->host_rank);
  fill_order(named, m.by_name.services, m.services.size(), mi->service_order, mi->service_rank);
  fill_order(named, m.by_name.contacts, m.contacts.size(), mi->contact_order, mi->contact_rank);
  fill_order(named, m.by_name.hostgroups, m.hostgroups.size(), mi->hostgroup_order, mi->hostgroup_rank);
  fill_order(named, m.by_name.servicegroups, m.servicegroups.size(), mi->servicegroup_order,
             mi->servicegroup_rank);
  fill_order(named, m.by_name.contactgroups, m.contactgroups.size(), mi->contactgroup_order,
             mi->contactgroup_rank);
  fill_order(named, m.by_name.commands, m.commands.size(), mi->command_order, mi->command_rank);
  fill_order(named, m.by_name.timeperiods, m.timeperiods.size(), mi->timeperiod_order, mi->timeperiod_rank);

  ranked_lists(m.hosts, &model::Host::services, mi->service_rank, /*descending=*/true, mi->host_services);
  ranked_lists(m.hosts, &model::Host::hostgroups, mi->hostgroup_rank, /*descending=*/true, mi->host_groups);
  ranked_lists(m.services, &model::Service::servicegroups, mi->servicegroup_rank, /*descending=*/true,
               mi->service_groups);
  ranked_lists(m.contacts, &model::Contact::contactgroups, mi->contactgroup_rank, /*descending=*/true,
               mi->contact_groups);
  ranked_lists(m.hosts, &model::Host::parents, mi->host_rank, /*descending=*/false, mi->host_parents);
  ranked_lists(m.hosts, &model::Host::children, mi->host_rank, /*descending=*/false, mi->host_children);
  ranked_lists(m.hostgroups, &model::Hostgroup::members, mi->host_rank, /*descending=*/false,
               mi->hostgroup_members);
  ranked_lists(m.contactgroups, &model::Contactgroup::members, mi->contact_rank, false,
               mi->contactgroup_members);

  std::vector<std::uint32_t> ranks;
  for (const model::Host& h : m.hosts) {
    ranks.clear();
    contact_ranks(m, h.contacts, h.contact_groups, mi->contact_rank, ranks);
    sort_unique(ranks);
    for (std::uint32_t r : ranks) mi->host_contacts.add(r);
    mi->host_contacts.end_list();
  }
  for (const model::Service& sv : m.services) {
    ranks.clear();
    contact_ranks(m, sv.contacts, sv.contact_groups, mi->contact_rank, ranks);
    sort_unique(ranks);
    for (std::uint32_t r : ranks) mi->service_contacts.add(r);
    mi->service_contacts.end_list();
  }

  Pairs pairs;
  for (const model::HostEscalation& e : m.host_escalations)
    escalated_contacts(m, e.rule, model::index(e.host), mi->contact_rank, pairs);
  unique_lists_from_pairs(pairs, m.hosts.size(), mi->host_escalated);
  pairs.clear();
  for (const model::ServiceEscalation& e : m.service_escalations)
    escalated_contacts(m, e.rule, model::index(e.service), mi->contact_rank, pairs);
  unique_lists_from_pairs(pairs, m.services.size(), mi->service_escalated);

  Pairs exec, notify;
  for (std::uint32_t i = 0; i < m.host_dependencies.size(); ++i) {
    const model::HostDependency& d = m.host_dependencies[i];
    (d.kind == model::DependencyKind::execution ? exec : notify).emplace_back(model::index(d.dependent), i);
  }
  lists_from_pairs(exec, m.hosts.size(), mi->host_exec_deps);
  lists_from_pairs(notify, m.hosts.size(), mi->host_notify_deps);
  exec.clear();
  notify.clear();
  for (std::uint32_t i = 0; i < m.service_dependencies.size(); ++i) {
    const model::ServiceDependency& d = m.service_dependencies[i];
    (d.kind == model::DependencyKind::execution ? exec : notify).emplace_back(model::index(d.dependent), i);
  }
  lists_from_pairs(exec, m.services.size(), mi->service_exec_deps);
  lists_from_pairs(notify, m.services.size(), mi->service_notify_deps);
  return mi;
}

// The host and service (model indexes or k_none) a comment or downtime names.
template <typename Entry>
std::pair<std::uint32_t, std::uint32_t> object_of(const model::Model& m, const Entry& e) {
  const auto host = m.host_by_name.find(e.host_name);
  if (host == m.host_by_name.end()) return {k_none, k_none};
  if (!e.is_service) return {model::index(host->second), k_none};
  const model::ServiceId service = m.find_service(e.host_name, e.service_description);
  return {model::index(host->second), model::is_set(service) ? model::index(service) : k_none};
}

template <typename Entry, typename IdOf>
void index_entries(const model::Model& m, std::span<const Entry> entries, IdOf id_of,
                   std::vector<std::uint32_t>& order, std::vector<std::uint32_t>& hosts,
                   std::vector<std::uint32_t>& services, FlatLists& by_host, FlatLists& by_service) {
  order.resize(entries.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return id_of(entries[a]) < id_of(entries[b]); });
  hosts.resize(entries.size());
  services.resize(entries.size());
  Pairs of_host, of_service;
  for (std::uint32_t at : order) {
    const auto [host, service] = object_of(m, entries[at]);
    hosts[at] = host;
    services[at] = service;
    if (service != k_none) {
      of_service.emplace_back(service, at);
    } else if (host != k_none) {
      of_host.emplace_back(host, at);
    }
  }
  lists_from_pairs(of_host, m.hosts.size(), by_host);
  lists_from_pairs(of_service, m.services.size(), by_service);
}

std::shared_ptr<const ExtrasIndex> build_extras_index(const files::StatusSnapshot& s) {
  auto ei = std::make_shared<ExtrasIndex>();
  ei->comment_list = s.comments;
  ei->downtime_list = s.downtimes;
  if (s.comments != nullptr) ei->comments = *s.comments;
  if (s.downtimes != nullptr) ei->downtimes = *s.downtimes;
  const model::Model& m = *s.model;
  index_entries(
      m, ei->comments, [](const files::StatusComment& c) { return c.comment_id; }, ei->comment_order,
      ei->comment_host, ei->comment_service, ei->host_comments, ei->service_comments);
  index_entries(
      m, ei->downtimes, [](const files::StatusDowntime& d) { return d.downtime_id; }, ei->downtime_order,
      ei->downtime_host, ei->downtime_service, ei->host_downtimes, ei->service_downtimes);
  return ei;
}

// The index holds the model's keep_alive and the comment and downtime lists, so while it lives none can
// have been freed and another put at its address; without a keep_alive only the snapshot it was built for
// is trusted.
bool matches(const TableIndex& index, const files::StatusSnapshot* s) {
  if (s == nullptr || index.model != s->model || index.comments != s->comments.get() ||
      index.downtimes != s->downtimes.get())
    return false;
  return index.built_for == s || (index.model_part != nullptr && index.model_part->keep_alive != nullptr &&
                                  index.model_part->keep_alive == s->keep_alive);
}

}  // namespace

const TableIndex& index_of(const View& v) {
  // One of another snapshot still lends its model part when the model is the same.
  if (v.index == nullptr || !matches(*v.index, v.status.get()))
    v.index = make_table_index(v.status, v.index.get());
  return *v.index;
}

}  // namespace tables

std::shared_ptr<const TableIndex> make_table_index(
    const std::shared_ptr<const files::StatusSnapshot>& snapshot, const TableIndex* previous) {
  auto index = std::make_shared<TableIndex>();
  index->built_for = snapshot.get();
  if (snapshot == nullptr || snapshot->model == nullptr) {
    index->model_part = std::make_shared<tables::ModelIndex>();
    index->extras_part = std::make_shared<tables::ExtrasIndex>();
    return index;
  }
  index->model = snapshot->model;
  index->comments = snapshot->comments.get();
  index->downtimes = snapshot->downtimes.get();
  // previous holds the keep_alive it was built with, so while it lives the model it names cannot have been
  // freed and another put at its address.
  const bool same_model = previous != nullptr && previous->model_part != nullptr &&
                          previous->model_part->model == snapshot->model &&
                          previous->model_part->keep_alive != nullptr &&
                          previous->model_part->keep_alive == snapshot->keep_alive;
  index->model_part = same_model ? previous->model_part : tables::build_model_index(*snapshot);
  const bool same_extras = same_model && previous->extras_part != nullptr &&
                           previous->extras_part->comment_list == snapshot->comments &&
                           previous->extras_part->downtime_list == snapshot->downtimes;
  index->extras_part = same_extras ? previous->extras_part : tables::build_extras_index(*snapshot);
  return index;
}

}  // namespace vedette::livestatus
