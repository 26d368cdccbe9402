// The object types of Naemon's object configuration and the directives each accepts (with Naemon's
// old aliases mapped to one canonical name). Any thread: immutable tables.
#pragma once

#include "config/directive.hpp"

#include <cstdint>
#include <optional>
#include <string_view>

namespace vedette::config {

enum class ObjectType : std::uint8_t {
  timeperiod,
  command,
  contact,
  contactgroup,
  host,
  hostgroup,
  service,
  servicegroup,
  hostdependency,
  servicedependency,
  hostescalation,
  serviceescalation,
  hostextinfo,
  serviceextinfo,
};
inline constexpr std::size_t k_object_type_count = 14;

[[nodiscard]] std::optional<ObjectType> object_type_from_name(std::string_view name);
// "host", "service", … as written after `define`.
[[nodiscard]] std::string_view object_type_name(ObjectType type);
// The directive that names an object of this type ("host_name", "service_description" …); empty for
// types that have no single name (dependencies, escalations, extinfo).
[[nodiscard]] std::string_view name_directive(ObjectType type);

// The canonical directive `key` stands for in `type` (aliases mapped), or nullopt when Naemon does not
// accept it there. Custom variables (`_NAME`) are handled by the caller; timeperiod date lines too.
[[nodiscard]] std::optional<DirectiveId> canonical_directive(ObjectType type, std::string_view key);

// Directives whose value is a list that `+value` extends with the inherited list (Naemon's additive
// inheritance); for the others a leading '+' is kept literally.
[[nodiscard]] bool is_additive_directive(ObjectType type, std::string_view canonical);

// Group membership directives that accumulate when written several times in one definition.
[[nodiscard]] bool is_accumulating_directive(ObjectType type, std::string_view canonical);

}  // namespace vedette::config
