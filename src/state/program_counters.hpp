// The program-wide counters status.dat's programstatus and retention.dat's program block both write: the
// program's modified attributes and the next comment, downtime and event ids. Plain values, for any thread;
// the core fills them from the World and the books for each snapshot, retention::apply() returns the file's.
#pragma once

namespace vedette::state {

// The defaults are Naemon's at start-up, before any command, comment, downtime or state change.
struct ProgramCounters {
  unsigned long modified_host_attributes = 0;
  unsigned long modified_service_attributes = 0;
  unsigned long next_comment_id = 1;
  unsigned long next_downtime_id = 1;
  unsigned long next_event_id = 1;
};

}  // namespace vedette::state
