// For the runner tests: `count` copies of one native job on an executor, and their results once all came
// (or what came within `limit`, with a test failure). `timeout_ms` is the job's own timeout.
#pragma once

#include "exec/executor.hpp"
#include "exec/result_queue.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <poll.h>
#include <string>
#include <vector>

namespace vedette::native {

inline std::vector<exec::CheckResult> run_native_jobs(exec::Executor& executor, exec::ResultQueue& results,
                                                      model::NativePlugin plugin,
                                                      const std::vector<std::string>& argv, int count,
                                                      std::chrono::seconds limit,
                                                      std::uint32_t timeout_ms = 60'000) {
  const auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < count; ++i) {
    exec::CheckJob job;
    job.id = static_cast<std::uint32_t>(i);
    job.native = plugin;
    job.argv = argv;
    job.timeout_ms = timeout_ms;
    EXPECT_TRUE(executor.submit(std::move(job)));
  }
  std::vector<exec::CheckResult> all, batch;
  while (all.size() < static_cast<std::size_t>(count)) {
    if (std::chrono::steady_clock::now() - started > limit) {
      ADD_FAILURE() << all.size() << " of " << count << " results within " << limit.count() << " s";
      break;
    }
    pollfd p{results.fd(), POLLIN, 0};
    ::poll(&p, 1, 1000);
    results.drain(batch);
    for (auto& r : batch) all.push_back(std::move(r));
    batch.clear();
  }
  return all;
}

}  // namespace vedette::native
