// The hot state's names (state/) that retention's files and tests use unqualified. Names only: any thread.
#pragma once

#include "state/attributes.hpp"
#include "state/check_state.hpp"
#include "state/comments.hpp"
#include "state/program_counters.hpp"

namespace vedette::retention {

using state::Time;
using state::Timeval;

using state::ChangedVariable;
using state::configured_flag;
using state::Flag;
using state::flag_info;
using state::FlagInfo;
using state::k_flag_count;
using namespace state::modattr;

// The hostcomment/servicecomment and hostdowntime/servicedowntime blocks.
using state::Comment;
using state::Downtime;

// The program block's counters (modified attributes, next ids).
using state::ProgramCounters;

}  // namespace vedette::retention
