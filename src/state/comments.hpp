// Comments and scheduled downtimes, as retention.dat and status.dat hold them: one hostcomment/servicecomment
// or hostdowntime/servicedowntime block each, field for field. Below both the writers of those files and the
// engine, whose books (engine/books/comment_book.hpp, engine/books/downtime_book.hpp) hold them on the core
// thread and hand the writer threads immutable copies. Plain values, for any thread.
#pragma once

#include "state/check_state.hpp"

#include <string>

namespace vedette::state {

// The strings' `{}` lets designated initializers leave them out (-Wmissing-field-initializers).
struct Comment {
  bool is_service = false;
  std::string host_name{};
  std::string service_description{};
  int entry_type = 1;  // 1 user, 2 downtime, 3 flapping, 4 acknowledgement
  unsigned long comment_id = 0;
  int source = 0;  // 0 internal, 1 external
  bool persistent = false;
  Time entry_time = 0;
  bool expires = false;  // with expire_time, data only: no comment is removed at its expire_time (Naemon 1.x)
  Time expire_time = 0;
  std::string author{};
  std::string comment_data{};
};

struct Downtime {
  bool is_service = false;
  std::string host_name{};
  std::string service_description{};
  unsigned long comment_id = 0;
  unsigned long downtime_id = 0;
  Time entry_time = 0;
  Time start_time = 0;
  Time flex_downtime_start = 0;
  Time end_time = 0;
  unsigned long triggered_by = 0;
  bool fixed = false;
  unsigned long duration = 0;
  bool is_in_effect = false;
  bool start_notification_sent = false;
  std::string author{};
  std::string comment{};
};

}  // namespace vedette::state
