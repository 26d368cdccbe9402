// What retention.dat holds that Vedette's engine does not track yet: the last_update stamps. apply() fills a
// Carried from the file at start-up; it is immutable afterwards and every retention Snapshot shares it, so
// these fields go back into the next retention.dat and nothing Naemon kept is lost by a restart under
// Vedette. When the engine gains one of these features, its fields move into HostState/ServiceState and out
// of here.
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

using state::ChangedVariable;
using state::configured_flag;
using state::Flag;
using state::flag_info;
using state::FlagInfo;
using state::k_flag_count;
using namespace state::modattr;

// One host's or service's fields that the engine has no place for yet (16 bytes; one per object).
struct CheckableExtras {
  Time last_update_sec = 0;
  std::int32_t last_update_usec = 0;
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
  [[nodiscard]] const CheckableExtras* host(model::HostId id) const {
    return model::index(id) < hosts.size() ? &hosts[model::index(id)] : nullptr;
  }
  [[nodiscard]] const CheckableExtras* service(model::ServiceId id) const {
    return model::index(id) < services.size() ? &services[model::index(id)] : nullptr;
  }
};

}  // namespace vedette::retention
