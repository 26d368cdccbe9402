// Where a result's performance data goes once the result pipeline has applied it (PerfdataOutputs: the
// perfdata files and commands, the TSDB, gearman); an interface so that the pipeline's tests can count
// the calls. Core thread only.
#pragma once

#include "engine/state/check_id.hpp"
#include "engine/state/core_time.hpp"

namespace vedette::engine {

class PerfdataSink {
 public:
  // After each result of `check`, taken in at `now`, when process_performance_data is on: the pipeline
  // checks that first, so the common case (off) costs no call per result.
  virtual void after_result(CheckId check, Time now) = 0;

 protected:
  ~PerfdataSink() = default;
};

}  // namespace vedette::engine
