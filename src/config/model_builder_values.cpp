#include "config/model_builder_internal.hpp"

#include <charconv>
#include <cstdlib>

namespace vedette::config::internal {

const OptionTable k_host_notification_options = {{"d", "down", model::k_opt_down},
                                                 {"u", "unreachable", model::k_opt_unreachable},
                                                 {"r", "recovery", model::k_opt_recovery},
                                                 {"f", "flapping", model::k_opt_flapping},
                                                 {"s", "downtime", model::k_opt_downtime}};
const OptionTable k_service_notification_options = {
    {"w", "warning", model::k_opt_warning},   {"u", "unknown", model::k_opt_unknown},
    {"c", "critical", model::k_opt_critical}, {"r", "recovery", model::k_opt_recovery},
    {"f", "flapping", model::k_opt_flapping}, {"s", "downtime", model::k_opt_downtime}};
const OptionTable k_host_state_options = {{"o", "up", model::k_opt_up},
                                          {"d", "down", model::k_opt_down},
                                          {"u", "unreachable", model::k_opt_unreachable}};
const OptionTable k_service_state_options = {{"o", "ok", model::k_opt_ok},
                                             {"w", "warning", model::k_opt_warning},
                                             {"u", "unknown", model::k_opt_unknown},
                                             {"c", "critical", model::k_opt_critical}};
const OptionTable k_host_stalking_options = {{"o", "up", model::k_opt_up},
                                             {"d", "down", model::k_opt_down},
                                             {"u", "unreachable", model::k_opt_unreachable},
                                             {"N", "notifications", model::k_opt_notifications}};
const OptionTable k_service_stalking_options = {{"o", "ok", model::k_opt_ok},
                                                {"w", "warning", model::k_opt_warning},
                                                {"u", "unknown", model::k_opt_unknown},
                                                {"c", "critical", model::k_opt_critical},
                                                {"N", "notifications", model::k_opt_notifications}};
const OptionTable k_host_escalation_options = {{"d", "down", model::k_opt_down},
                                               {"u", "unreachable", model::k_opt_unreachable},
                                               {"r", "recovery", model::k_opt_recovery}};
const OptionTable k_service_escalation_options = {{"w", "warning", model::k_opt_warning},
                                                  {"u", "unknown", model::k_opt_unknown},
                                                  {"c", "critical", model::k_opt_critical},
                                                  {"r", "recovery", model::k_opt_recovery}};
const OptionTable k_host_dependency_options = {{"o", "up", model::k_opt_up},
                                               {"d", "down", model::k_opt_down},
                                               {"u", "unreachable", model::k_opt_unreachable},
                                               {"p", "pending", model::k_opt_pending}};
const OptionTable k_service_dependency_options = {{"o", "ok", model::k_opt_ok},
                                                  {"w", "warning", model::k_opt_warning},
                                                  {"u", "unknown", model::k_opt_unknown},
                                                  {"c", "critical", model::k_opt_critical},
                                                  {"p", "pending", model::k_opt_pending}};

bool ModelBuilder::bool_attr(const RawObject& obj, DirectiveKey key, bool fallback) {
  const RawAttr* a = obj.find(key);
  if (a == nullptr || a->is_null) return fallback;
  if (a->parsed_as == RawAttr::Parsed::flag) return a->parsed != 0;
  bool value = fallback;
  if (a->value.empty() || (a->value.front() != '0' && a->value.front() != '1')) {
    diags_.error(fmt::format("Invalid boolean value '{}' for {} in {} definition", a->value, key.name,
                             object_type_name(obj.type)),
                 obj.at);
  } else {
    value = a->value.front() == '1';
  }
  a->parsed_as = RawAttr::Parsed::flag;
  a->parsed = value ? 1 : 0;
  return value;
}

double ModelBuilder::number_attr(const RawObject& obj, DirectiveKey key, double fallback) {
  const RawAttr* a = obj.find(key);
  if (a == nullptr || a->is_null) return fallback;
  if (a->parsed_as == RawAttr::Parsed::number) return a->parsed;
  const double v = parse_number(obj, *a, key, fallback);
  a->parsed_as = RawAttr::Parsed::number;
  a->parsed = v;
  return v;
}

double ModelBuilder::parse_number(const RawObject& obj, const RawAttr& attr, DirectiveKey key,
                                  double fallback) {
  const RawAttr* a = &attr;
  double v = 0;
  auto [ptr, ec] = std::from_chars(a->value.data(), a->value.data() + a->value.size(), v);
  if (ec == std::errc() && ptr == a->value.data() + a->value.size()) return v;
  // Not a plain number: take what strtod() takes, as Naemon does.
  std::string text(a->value);
  char* end = nullptr;
  v = std::strtod(text.c_str(), &end);
  if (end == text.c_str()) {
    diags_.error(fmt::format("Invalid numeric value '{}' for {} in {} definition", a->value, key.name,
                             object_type_name(obj.type)),
                 obj.at);
    return fallback;
  }
  if (*end != '\0') {
    diags_.warning(fmt::format("Trailing characters in numeric value '{}' for {} in {} definition ignored",
                               a->value, key.name, object_type_name(obj.type)),
                   obj.at);
  }
  return v;
}

OptionSet ModelBuilder::options_attr(const RawObject& obj, DirectiveKey key, const OptionTable& table,
                                     OptionSet fallback) {
  const RawAttr* a = obj.find(key);
  if (a == nullptr || a->is_null) return fallback;
  return parse_options(obj, *a, key, table);
}

OptionSet ModelBuilder::parse_options(const RawObject& obj, const RawAttr& attr, DirectiveKey key,
                                      const OptionTable& table) {
  const RawAttr* a = &attr;
  if (a->parsed_as == RawAttr::Parsed::options) return static_cast<OptionSet>(a->parsed);
  OptionSet bits = model::k_opt_nothing;
  for (std::string_view item : split_list(a->value)) {
    if (item == "n" || item == "none") {
      bits = model::k_opt_nothing;
      continue;
    }
    if (item == "a" || item == "all") {
      bits = model::k_opt_all;
      continue;
    }
    bool known = false;
    for (const OptionName& o : table) {
      if (item == o.letter || item == o.word) {
        bits |= o.bits;
        known = true;
        break;
      }
    }
    if (!known)
      diags_.error(
          fmt::format("Invalid {} option '{}' in {} definition", key.name, item, object_type_name(obj.type)),
          obj.at);
  }
  a->parsed_as = RawAttr::Parsed::options;
  a->parsed = bits;
  return bits;
}

void ModelBuilder::check_description(const model::Service& s, const RawObject& obj) {
  if (options_.illegal_object_name_chars.empty()) return;
  if (s.description.find_first_of(options_.illegal_object_name_chars) == std::string_view::npos) return;
  diags_.error(fmt::format("The description string for service '{}' on host '{}' contains one or more "
                           "illegal characters.",
                           s.description, s.host_name),
               obj.at);
}

void ModelBuilder::check_name(std::string_view name, std::string_view what, const RawObject& obj) {
  if (options_.illegal_object_name_chars.empty()) return;
  if (name.find_first_of(options_.illegal_object_name_chars) == std::string_view::npos) return;
  diags_.error(fmt::format("The name of {} '{}' contains one or more illegal characters.", what, name),
               obj.at);
}

model::TimeperiodId ModelBuilder::find_timeperiod(std::string_view name) {
  auto it = model_->timeperiod_by_name.find(name);
  return it == model_->timeperiod_by_name.end() ? model::no_id<model::TimeperiodId>() : it->second;
}

std::vector<model::CustomVariable> ModelBuilder::custom_variables(const RawObject& obj) {
  std::vector<model::CustomVariable> out;
  for (const RawAttr* a : custom_variables_.of(obj))
    out.push_back({intern(store_.custom_variable_name(a->name_id).substr(1)), intern(a->value), a->is_null});
  return out;
}

namespace {

// The directives read_settings() reads: an object that has none of them itself takes them all from its
// templates.
std::bitset<k_directive_count> settings_directives() {
  const DirectiveKey keys[] = {"notes",
                               "notes_url",
                               "action_url",
                               "icon_image",
                               "icon_image_alt",
                               "check_interval",
                               "retry_interval",
                               "max_check_attempts",
                               "hourly_value",
                               "freshness_threshold",
                               "low_flap_threshold",
                               "high_flap_threshold",
                               "notification_interval",
                               "first_notification_delay",
                               "flap_detection_options",
                               "notification_options",
                               "stalking_options",
                               "active_checks_enabled",
                               "passive_checks_enabled",
                               "obsess",
                               "event_handler_enabled",
                               "check_freshness",
                               "flap_detection_enabled",
                               "notifications_enabled",
                               "process_perf_data",
                               "retain_status_information",
                               "retain_nonstatus_information"};
  std::bitset<k_directive_count> ids;
  for (const DirectiveKey& key : keys) ids.set(key.id);
  return ids;
}

}  // namespace

std::size_t ModelBuilder::BasesHash::operator()(const std::vector<const RawObject*>& bases) const {
  std::size_t h = bases.size();
  for (const RawObject* b : bases) h = h * 31 + std::hash<const RawObject*>{}(b);
  return h;
}

void ModelBuilder::checkable_values(const RawObject& obj, const OptionTables& tables, model::Checkable& c) {
  static const std::bitset<k_directive_count> settings = settings_directives();
  if ((obj.own & settings).any()) {
    read_settings(obj, tables, c);
    return;
  }
  // A template's value is parsed and reported once, for the first object reading it (RawAttr::parsed), so
  // the copy reports what reading again would: nothing.
  auto [it, first] = settings_by_bases_.try_emplace(obj.bases);
  if (first) read_settings(obj, tables, it->second);
  static_cast<model::CheckableSettings&>(c) = it->second;
}

void ModelBuilder::read_settings(const RawObject& obj, const OptionTables& tables,
                                 model::CheckableSettings& c) {
  c.notes = intern(obj.get("notes"));
  c.notes_url = intern(obj.get("notes_url"));
  c.action_url = intern(obj.get("action_url"));
  c.icon_image = intern(obj.get("icon_image"));
  c.icon_image_alt = intern(obj.get("icon_image_alt"));
  c.check_interval = number_attr(obj, "check_interval", 5.0);
  c.retry_interval = number_attr(obj, "retry_interval", 1.0);
  c.max_check_attempts = int_attr(obj, "max_check_attempts", -2);
  c.hourly_value = int_attr(obj, "hourly_value", 1);
  c.freshness_threshold = number_attr(obj, "freshness_threshold", 0);
  c.low_flap_threshold = number_attr(obj, "low_flap_threshold", 0);
  c.high_flap_threshold = number_attr(obj, "high_flap_threshold", 0);
  c.notification_interval = number_attr(obj, "notification_interval", 30.0);
  c.first_notification_delay = number_attr(obj, "first_notification_delay", 0);
  c.flap_detection_options =
      options_attr(obj, "flap_detection_options", tables.flap_detection, model::k_opt_all);
  c.notification_options = options_attr(obj, "notification_options", tables.notification, model::k_opt_all);
  c.stalking_options = options_attr(obj, "stalking_options", tables.stalking, model::k_opt_nothing);
  c.active_checks_enabled = bool_attr(obj, "active_checks_enabled", true);
  c.passive_checks_enabled = bool_attr(obj, "passive_checks_enabled", true);
  c.obsess = bool_attr(obj, "obsess", true);
  c.event_handler_enabled = bool_attr(obj, "event_handler_enabled", true);
  c.check_freshness = bool_attr(obj, "check_freshness", false);
  c.flap_detection_enabled = bool_attr(obj, "flap_detection_enabled", true);
  c.notifications_enabled = bool_attr(obj, "notifications_enabled", true);
  c.process_perf_data = bool_attr(obj, "process_perf_data", true);
  c.retain_status_information = bool_attr(obj, "retain_status_information", true);
  c.retain_nonstatus_information = bool_attr(obj, "retain_nonstatus_information", true);
}

void ModelBuilder::fill_empty(std::string_view& field, const RawObject& obj, DirectiveKey key) {
  if (field.empty() && obj.has_value(key)) field = intern(obj.get(key));
}

void ModelBuilder::fill_from_extinfo(const RawObject& obj, model::Checkable& c) {
  fill_empty(c.notes, obj, "notes");
  fill_empty(c.notes_url, obj, "notes_url");
  fill_empty(c.action_url, obj, "action_url");
  fill_empty(c.icon_image, obj, "icon_image");
  fill_empty(c.icon_image_alt, obj, "icon_image_alt");
}

int ModelBuilder::initial_state(const RawObject& obj, bool host) {
  std::string_view v = obj.get("initial_state");
  if (v.empty()) return 0;
  if (host) {
    if (v == "o" || v == "up") return 0;
    if (v == "d" || v == "down") return 1;
    if (v == "u" || v == "unreachable") return 2;
  } else {
    if (v == "o" || v == "ok") return 0;
    if (v == "w" || v == "warning") return 1;
    if (v == "c" || v == "critical") return 2;
    if (v == "u" || v == "unknown") return 3;
  }
  diags_.error(fmt::format("Invalid initial state '{}' in {} definition", v, object_type_name(obj.type)),
               obj.at);
  return 0;
}
}  // namespace vedette::config::internal
