// What retention.dat holds that Vedette's engine does not track yet: notification counters, flapping history,
// event and problem ids, contact notification times and changed contact attributes. apply() fills a Carried
// from the file at start-up; it is immutable afterwards and every retention Snapshot shares it, so these
// fields go back into the next retention.dat and nothing Naemon kept is lost by a restart under Vedette. When
// the engine gains one of these features, its fields move into HostState/ServiceState and out of here.
//
// Built on the core thread by apply(); afterwards immutable, read by the core and the writer thread.
// Indexed by the ids of the model it was applied to: after a reload, build a new one (write, read, apply).
#pragma once

#include "model/model.hpp"
#include "state/attributes.hpp"
#include "state/check_state.hpp"
#include "state/comments.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vedette::retention {

using Time = state::Time;

// Naemon's `struct timeval` fields as retention.dat writes them ("sec.usec").
struct Timeval {
  std::int64_t sec = 0;
  std::int32_t usec = 0;
};

// Naemon keeps the last 21 states of an object for flap detection (MAX_STATE_HISTORY_ENTRIES).
inline constexpr std::size_t k_state_history_size = 21;

// A string stored in Carried::text; keeps CheckableExtras small (they exist once per host and service).
struct TextRef {
  std::uint32_t offset = 0;
  std::uint32_t size = 0;
};

using state::ChangedVariable;
using state::configured_flag;
using state::Flag;
using state::flag_info;
using state::FlagInfo;
using state::k_flag_count;
using namespace state::modattr;

// One host's or service's fields that the engine has no place for yet (144 bytes; one per object).
struct CheckableExtras {
  unsigned long last_event_id = 0;
  unsigned long current_event_id = 0;
  Time problem_start = 0;
  Time problem_end = 0;
  Time last_notification = 0;
  Time last_update_sec = 0;
  // last_state_change as the file had it: the writer drops notification counters once the state has moved
  // on without Vedette tracking them (see writer.hpp).
  Time read_last_state_change = 0;
  double percent_state_change = 0;
  TextRef current_problem_id;
  TextRef last_problem_id;
  TextRef current_notification_id;
  std::int32_t last_update_usec = 0;
  std::int32_t current_notification_number = 0;
  std::array<std::uint8_t, k_state_history_size> state_history{};  // oldest first, as written
  // Hosts: bit 0 down, 1 unreachable. Services: bit 0 unknown, 1 warning, 2 critical (the order written).
  std::uint8_t notified_on = 0;
  bool is_flapping = false;
  bool check_flapping_recovery_notification = false;
};
static_assert(sizeof(CheckableExtras) <= 144);  // one per host and service for the whole run

// Whether the carried notification number, id and notified_on flags still hold for an object in its state
// now: Naemon resets them on every state change, which the engine does not follow yet, so retention.dat and
// status.dat show them only while no state change can have happened since the file was read.
[[nodiscard]] inline bool notifications_still_valid(const CheckableExtras& e, int current_state,
                                                    Time last_state_change) {
  return last_state_change == e.read_last_state_change && current_state != 0;
}

struct ContactExtras {
  unsigned long modified_attributes = 0;
  unsigned long modified_host_attributes = 0;
  unsigned long modified_service_attributes = 0;
  Time last_host_notification = 0;
  Time last_service_notification = 0;
  std::optional<bool> host_notifications_enabled;
  std::optional<bool> service_notifications_enabled;
  std::optional<std::string> host_notification_period;
  std::optional<std::string> service_notification_period;
  std::vector<ChangedVariable> custom_variables;
};

// The hostcomment/servicecomment and hostdowntime/servicedowntime blocks.
using state::Comment;
using state::Downtime;

// Program-wide values of the program block that are not options of MainConfig. The defaults are Naemon's
// at start-up.
struct ProgramCounters {
  unsigned long modified_host_attributes = 0;
  unsigned long modified_service_attributes = 0;
  unsigned long next_comment_id = 1;
  unsigned long next_downtime_id = 1;
  unsigned long next_event_id = 1;
};

struct Carried {
  const model::Model* model = nullptr;    // the model the ids below belong to; the writer checks it
  std::vector<CheckableExtras> hosts;     // indexed like model.hosts
  std::vector<CheckableExtras> services;  // indexed like model.services
  std::vector<ContactExtras> contacts;    // indexed like model.contacts
  std::string text;                       // the strings TextRefs point to

  [[nodiscard]] std::string_view str(TextRef r) const { return {text.data() + r.offset, r.size}; }
  [[nodiscard]] const CheckableExtras* host(model::HostId id) const {
    return model::index(id) < hosts.size() ? &hosts[model::index(id)] : nullptr;
  }
  [[nodiscard]] const CheckableExtras* service(model::ServiceId id) const {
    return model::index(id) < services.size() ? &services[model::index(id)] : nullptr;
  }
};

}  // namespace vedette::retention
