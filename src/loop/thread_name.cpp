#include "loop/thread_name.hpp"

#include <algorithm>
#include <pthread.h>

namespace vedette::loop {
namespace {

constexpr std::size_t k_max_name = 15;  // TASK_COMM_LEN - 1

}  // namespace

bool set_current_thread_name(std::string_view name) {
  char buffer[k_max_name + 1] = {};
  name.copy(buffer, std::min(name.size(), k_max_name));
  return pthread_setname_np(pthread_self(), buffer) == 0;
}

std::string current_thread_name() {
  char buffer[k_max_name + 1] = {};
  if (pthread_getname_np(pthread_self(), buffer, sizeof buffer) != 0) return {};
  return buffer;
}

}  // namespace vedette::loop
