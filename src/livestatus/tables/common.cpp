// Helpers every table uses: AuthUser, timeperiods, macros, attribute names, column order.
#include "livestatus/tables/checkable_internal.hpp"
#include "livestatus/tables/tables_internal.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <strings.h>
#include <unistd.h>
#include <unordered_set>

namespace vedette::livestatus::tables {
namespace {

bool has_rank(std::span<const std::uint32_t> ranks, std::uint32_t rank) {
  return std::binary_search(ranks.begin(), ranks.end(), rank);
}

// Naemon's empty fields are null pointers, which the module leaves unexpanded: a text Vedette keeps empty
// (no output yet, no perfdata, no such command) counts as null.
std::optional<std::string_view> unless_empty(std::string_view s) {
  if (s.empty()) return std::nullopt;
  return s;
}

std::optional<std::string_view> custom_macro(std::string_view name,
                                             const std::vector<model::CustomVariable>& vars,
                                             const state::Overrides* ov) {
  for (const model::CustomVariable& var : vars) {
    if (var.name.size() != name.size() || ::strncasecmp(var.name.data(), name.data(), name.size()) != 0)
      continue;
    if (var.is_null) return std::nullopt;
    const std::string* changed = ov != nullptr ? ov->custom_variable(var.name) : nullptr;
    return changed != nullptr ? std::string_view(*changed) : var.value;
  }
  return std::nullopt;
}

// The module's macro table: host macros, then (for a service column) service macros, then $USERn$.
std::optional<std::string_view> macro_value(const View& v, std::string_view name, std::uint32_t host,
                                            std::uint32_t service) {
  const model::Model& m = v.model();
  const Row hr{host, 0};
  const model::Host& h = m.hosts[host];
  if (name == "HOSTNAME") return h.name;
  if (name == "HOSTDISPLAYNAME") return h.display_name;
  if (name == "HOSTALIAS") return h.alias;
  if (name == "HOSTADDRESS") return h.address;
  const files::StatusState& hst = state_of<H>(v, hr);
  if (name == "HOSTOUTPUT") return unless_empty(v.status->text_at(hst.text_offset, hst.output_size));
  if (name == "LONGHOSTOUTPUT")
    return unless_empty(v.status->text_at(hst.text_offset + hst.output_size, hst.long_output_size));
  if (name == "HOSTPERFDATA") {
    return unless_empty(
        v.status->text_at(hst.text_offset + hst.output_size + hst.long_output_size, hst.perf_data_size));
  }
  if (name == "HOSTCHECKCOMMAND") return unless_empty(check_command_of<H>(v, hr));
  if (name.starts_with("_HOST"))
    return custom_macro(name.substr(5), h.custom_variables, overrides_of<H>(v, hr));
  if (service != k_none) {
    const Row sr{service, 0};
    const model::Service& s = m.services[service];
    const files::StatusState& st = state_of<S>(v, sr);
    if (name == "SERVICEDESC") return s.description;
    if (name == "SERVICEDISPLAYNAME") return s.display_name;
    if (name == "SERVICEOUTPUT") return unless_empty(v.status->text_at(st.text_offset, st.output_size));
    if (name == "LONGSERVICEOUTPUT")
      return unless_empty(v.status->text_at(st.text_offset + st.output_size, st.long_output_size));
    if (name == "SERVICEPERFDATA") {
      return unless_empty(
          v.status->text_at(st.text_offset + st.output_size + st.long_output_size, st.perf_data_size));
    }
    if (name == "SERVICECHECKCOMMAND") return unless_empty(check_command_of<S>(v, sr));
    if (name.starts_with("_SERVICE"))
      return custom_macro(name.substr(8), s.custom_variables, overrides_of<S>(v, sr));
  }
  if (name.starts_with("USER")) {
    // atoi: leading digits count, whatever follows them.
    int n = 0;
    for (std::size_t i = 4; i < name.size() && name[i] >= '0' && name[i] <= '9' && n <= 1000; ++i)
      n = n * 10 + (name[i] - '0');
    if (n > 0 && static_cast<std::size_t>(n) <= m.user_macros.size())
      return unless_empty(m.user_macros[n - 1]);
  }
  return std::nullopt;
}

}  // namespace

const Settings& settings_of(const View& v) {
  static const Settings k_defaults;
  return v.settings != nullptr ? *v.settings : k_defaults;
}

bool host_visible(const View& v, std::uint32_t host, std::uint32_t contact) {
  if (contact == k_no_auth_user) return true;
  if (contact >= v.model().contacts.size()) return false;
  const ModelIndex& mi = model_index(v);
  const std::uint32_t rank = mi.contact_rank[contact];
  return has_rank(mi.host_contacts.of(host), rank) || has_rank(mi.host_escalated.of(host), rank);
}

bool service_visible(const View& v, std::uint32_t service, std::uint32_t contact) {
  if (contact == k_no_auth_user) return true;
  if (contact >= v.model().contacts.size()) return false;
  const ModelIndex& mi = model_index(v);
  const std::uint32_t rank = mi.contact_rank[contact];
  if (has_rank(mi.service_contacts.of(service), rank) || has_rank(mi.service_escalated.of(service), rank))
    return true;
  return settings_of(v).service_authorization == Authorization::loose &&
         host_visible(v, model::index(v.model().services[service].host), contact);
}

bool in_period(const View& v, model::TimeperiodId period) {
  if (!model::is_set(period) || v.periods == nullptr) return true;
  const std::uint32_t i = model::index(period);
  std::vector<std::int8_t>& memo = v.in_period;
  if (memo.size() != v.model().timeperiods.size()) memo.assign(v.model().timeperiods.size(), -1);
  if (i >= memo.size()) return true;
  if (memo[i] < 0) memo[i] = v.periods->is_time_valid(timeperiod::PeriodIndex{i}, v.now) ? 1 : 0;
  return memo[i] == 1;
}

model::TimeperiodId period_named(const View& v, std::string_view name) {
  const auto it = v.model().timeperiod_by_name.find(name);
  return it != v.model().timeperiod_by_name.end() ? it->second : model::no_id<model::TimeperiodId>();
}

void expand_macros(const View& v, std::string_view raw, std::uint32_t host, std::uint32_t service,
                   Cell& out) {
  std::string& s = out.owned_string();
  std::size_t at = 0;
  while (at < raw.size()) {
    const std::size_t dollar = raw.find('$', at);
    if (dollar == std::string_view::npos) {
      s.append(raw.substr(at));
      break;
    }
    s.append(raw.substr(at, dollar - at));
    const std::size_t other = raw.find('$', dollar + 1);
    if (other == std::string_view::npos) {  // unterminated: the rest as written
      s.append(raw.substr(dollar));
      break;
    }
    const std::optional<std::string_view> value =
        macro_value(v, raw.substr(dollar + 1, other - dollar - 1), host, service);
    s.append(value ? *value : raw.substr(dollar, other - dollar + 1));
    at = other + 1;
  }
}

void modified_attributes_list(unsigned long mask, Cell& out) {
  using namespace state::modattr;
  static constexpr std::array<std::pair<std::string_view, unsigned long>, 17> k_names{{
      {"notifications_enabled", k_modattr_notifications_enabled},
      {"active_checks_enabled", k_modattr_active_checks_enabled},
      {"passive_checks_enabled", k_modattr_passive_checks_enabled},
      {"event_handler_enabled", k_modattr_event_handler_enabled},
      {"flap_detection_enabled", k_modattr_flap_detection_enabled},
      {"failure_prediction_enabled", k_modattr_failure_prediction_enabled},
      {"performance_data_enabled", k_modattr_performance_data_enabled},
      {"obsessive_handler_enabled", k_modattr_obsessive_handler_enabled},
      {"event_handler_command", k_modattr_event_handler_command},
      {"check_command", k_modattr_check_command},
      {"normal_check_interval", k_modattr_normal_check_interval},
      {"retry_check_interval", k_modattr_retry_check_interval},
      {"max_check_attempts", k_modattr_max_check_attempts},
      {"freshness_checks_enabled", k_modattr_freshness_checks_enabled},
      {"check_timeperiod", k_modattr_check_timeperiod},
      {"custom_variable", k_modattr_custom_variable},
      {"notification_timeperiod", k_modattr_notification_timeperiod},
  }};
  out.start_list();
  for (const auto& [name, bit] : k_names)
    if ((mask & bit) != 0) out.add(name);
}

void sort_columns(std::vector<Column>& columns) {
  std::vector<Column> kept;
  kept.reserve(columns.size());
  std::unordered_set<std::string> seen;
  for (Column& c : columns)
    if (seen.insert(c.name).second) kept.push_back(std::move(c));
  std::sort(kept.begin(), kept.end(), [](const Column& a, const Column& b) { return a.name < b.name; });
  columns = std::move(kept);
}

Row host_of_service(const View& v, Row row) {
  const std::uint32_t host = model::index(v.model().services[row.index].host);
  return Row{host < v.status->hosts.size() ? host : k_no_row, 0};
}

int pnp_graph_present(const View& v, std::string_view host, std::optional<std::string_view> service) {
  const std::string& base = settings_of(v).pnp_path;
  if (base.empty()) return -1;
  // The module's file name: pnp_path, the host with ' ', '/', '\' and ':' made '_', then "/_HOST_.xml" or
  // "/<service, likewise>.xml". A path that would not fit its 4096 bytes counts as no graph (-1).
  std::array<char, 4096> path;
  if (base.size() + host.size() + service.value_or("").size() + 16 > path.size()) return -1;
  std::size_t n = 0;
  const auto append = [&](std::string_view text, bool clean) {
    for (char ch : text) path[n++] = clean && (ch == ' ' || ch == '/' || ch == '\\' || ch == ':') ? '_' : ch;
  };
  append(base, /*clean=*/false);
  append(host, /*clean=*/true);
  append("/", /*clean=*/false);
  if (service) {
    append(*service, /*clean=*/true);
    append(".xml", /*clean=*/false);
  } else {
    append("_HOST_.xml", /*clean=*/false);
  }
  path[n] = '\0';
  return ::access(path.data(), R_OK) == 0 ? 1 : 0;
}

}  // namespace vedette::livestatus::tables
