// Dense 32-bit ids of the runtime model. Strong types so a host id cannot be passed as a service id.
// Any thread; plain values.
#pragma once

#include <cstdint>
#include <limits>

namespace vedette::model {

enum class HostId : std::uint32_t {};
enum class ServiceId : std::uint32_t {};
enum class CommandId : std::uint32_t {};
enum class TimeperiodId : std::uint32_t {};
enum class ContactId : std::uint32_t {};
enum class HostgroupId : std::uint32_t {};
enum class ServicegroupId : std::uint32_t {};
enum class ContactgroupId : std::uint32_t {};

inline constexpr std::uint32_t k_no_id = std::numeric_limits<std::uint32_t>::max();

template <typename Id>
constexpr std::uint32_t index(Id id) {
  return static_cast<std::uint32_t>(id);
}
template <typename Id>
constexpr bool is_set(Id id) {
  return static_cast<std::uint32_t>(id) != k_no_id;
}
template <typename Id>
constexpr Id no_id() {
  return static_cast<Id>(k_no_id);
}

}  // namespace vedette::model
