#include "livestatus/engine_internal.hpp"

#include "livestatus/output.hpp"
#include "livestatus/text_internal.hpp"
#include "state/attributes.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace vedette::livestatus {
namespace {

struct AttributeName {
  std::string_view name;
  std::uint64_t bit;
};

// The names the module knows for modified_attributes, in its order.
constexpr std::array<AttributeName, 17> k_attribute_names{{
    {"notifications_enabled", state::k_modattr_notifications_enabled},
    {"active_checks_enabled", state::k_modattr_active_checks_enabled},
    {"passive_checks_enabled", state::k_modattr_passive_checks_enabled},
    {"event_handler_enabled", state::k_modattr_event_handler_enabled},
    {"flap_detection_enabled", state::k_modattr_flap_detection_enabled},
    {"failure_prediction_enabled", state::k_modattr_failure_prediction_enabled},
    {"performance_data_enabled", state::k_modattr_performance_data_enabled},
    {"obsessive_handler_enabled", state::k_modattr_obsessive_handler_enabled},
    {"event_handler_command", state::k_modattr_event_handler_command},
    {"check_command", state::k_modattr_check_command},
    {"normal_check_interval", state::k_modattr_normal_check_interval},
    {"retry_check_interval", state::k_modattr_retry_check_interval},
    {"max_check_attempts", state::k_modattr_max_check_attempts},
    {"freshness_checks_enabled", state::k_modattr_freshness_checks_enabled},
    {"check_timeperiod", state::k_modattr_check_timeperiod},
    {"custom_variable", state::k_modattr_custom_variable},
    {"notification_timeperiod", state::k_modattr_notification_timeperiod},
}};

std::uint64_t attribute_bit(std::string_view name) {
  for (const AttributeName& a : k_attribute_names)
    if (a.name == name) return a.bit;
  return 0;
}

void append_int(std::string& out, std::int64_t value) {
  std::array<char, 24> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out.append(buffer.data(), result.ptr);
}

}  // namespace

std::int64_t cell_int(const Cell& cell) {
  switch (cell.kind()) {
    case Cell::Kind::integer:
      return cell.as_int();
    case Cell::Kind::floating:
      return truncate_to_int64(cell.as_float());
    case Cell::Kind::string:
      return parse_int64(cell.as_string());
    case Cell::Kind::none:
    case Cell::Kind::list:
    case Cell::Kind::dict:
      return 0;
  }
  return 0;
}

double cell_double(const Cell& cell) {
  switch (cell.kind()) {
    case Cell::Kind::integer:
      return static_cast<double>(cell.as_int());
    case Cell::Kind::floating:
      return cell.as_float();
    case Cell::Kind::none:
    case Cell::Kind::string:
    case Cell::Kind::list:
    case Cell::Kind::dict:
      return 0;
  }
  return 0;
}

std::string_view cell_string(const Cell& cell) {
  return cell.kind() == Cell::Kind::string ? cell.as_string() : std::string_view();
}

std::uint64_t attribute_mask(std::string_view reference) {
  if (!reference.empty() && is_digit(reference.front()))
    return static_cast<std::uint64_t>(parse_int64(reference));
  std::uint64_t mask = 0;
  while (!reference.empty()) {
    const std::size_t comma = reference.find(',');
    mask |= attribute_bit(reference.substr(0, comma));
    reference.remove_prefix(comma == std::string_view::npos ? reference.size() : comma + 1);
  }
  return mask;
}

std::uint64_t attribute_mask(const Cell& cell) {
  if (cell.kind() != Cell::Kind::list) return static_cast<std::uint64_t>(cell_int(cell));
  std::uint64_t mask = 0;
  for (const Cell::Item& item : cell.items())
    for (const Cell::Atom& atom : cell.atoms_of(item))
      mask |= atom.is_int ? static_cast<std::uint64_t>(atom.value) : attribute_bit(cell.text_of(atom));
  return mask;
}

void append_group_key(std::string& out, const Cell& cell, const Column* column) {
  if (column == nullptr) {
    out.append("invalid");
    return;
  }
  if (column->match == Match::attributes) {
    append_int(out, static_cast<std::int64_t>(attribute_mask(cell)));
    return;
  }
  switch (column->type) {
    case ColumnType::integer:
      return append_int(out, cell_int(cell));
    case ColumnType::floating:
      return append_double(out, cell_double(cell));
    case ColumnType::time:
      if (cell.kind() == Cell::Kind::floating) {
        const double whole = std::floor(cell.as_float());
        std::array<char, 64> buffer{};
        const int n =
            std::snprintf(buffer.data(), buffer.size(), "%lld.%06lld", static_cast<long long>(whole),
                          std::llround((cell.as_float() - whole) * 1e6));
        out.append(buffer.data(), static_cast<std::size_t>(n));
        return;
      }
      return append_int(out, cell_int(cell));
    case ColumnType::string:
    case ColumnType::blob:
      out.append(cell_string(cell));
      return;
    case ColumnType::list:
    case ColumnType::dict:
      out.append("invalid");
      return;
  }
}

std::int64_t truncate_to_int64(double value) {
  constexpr double k_bound = 9223372036854775808.0;  // 2^63
  if (std::isnan(value) || value >= k_bound || value < -k_bound)
    return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(value);
}

}  // namespace vedette::livestatus
