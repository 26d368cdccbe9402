// The id of a check, host or service: one dense range, services first (a service's check id is its
// ServiceId) and hosts after them (services + HostId), so the per-check arrays of the core need no branch.
// Executors and gearman carry it as the bare number exec::CheckJob::id; it becomes a CheckId again where the
// result comes back. Any thread; plain values.
//
//   CheckIds ids{model.services.size()};
//   CheckId c = ids.of(host);            ids.is_service(c) == false, ids.host(c) == host
//   ByCheck<MonoTime> due_at;  due_at.resize(ids.count(model.hosts.size()));  due_at[c] = ...;
#pragma once

#include "model/ids.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace vedette::engine {

enum class CheckId : std::uint32_t {};
// What a check checks, where a call would otherwise take a bare `bool service`.
enum class ObjectKind : std::uint8_t { host, service };
// No check: a side command's job, or an object a reload removed.
inline constexpr CheckId k_no_check = model::no_id<CheckId>();

class CheckIds {
 public:
  explicit CheckIds(std::size_t services = 0) : services_(static_cast<std::uint32_t>(services)) {}

  [[nodiscard]] bool is_service(CheckId c) const { return model::index(c) < services_; }
  [[nodiscard]] CheckId of(model::ServiceId s) const { return CheckId{model::index(s)}; }
  [[nodiscard]] CheckId of(model::HostId h) const { return CheckId{services_ + model::index(h)}; }
  // Only for a check is_service() says is a service's (a host's).
  [[nodiscard]] model::ServiceId service(CheckId c) const { return model::ServiceId{model::index(c)}; }
  [[nodiscard]] model::HostId host(CheckId c) const { return model::HostId{model::index(c) - services_}; }
  // How many checks there are with `hosts` hosts.
  [[nodiscard]] std::size_t count(std::size_t hosts) const { return services_ + hosts; }

 private:
  std::uint32_t services_;
};

// A vector indexed by CheckId: a check id cannot index anything else by mistake, nor anything index it.
template <typename T>
class ByCheck {
 public:
  ByCheck() = default;
  explicit ByCheck(std::size_t n, const T& value = T{}) : items_(n, value) {}

  T& operator[](CheckId c) { return items_[model::index(c)]; }
  const T& operator[](CheckId c) const { return items_[model::index(c)]; }
  [[nodiscard]] bool contains(CheckId c) const { return model::index(c) < items_.size(); }
  [[nodiscard]] std::size_t size() const { return items_.size(); }
  void resize(std::size_t n) { items_.resize(n); }
  void resize(std::size_t n, const T& value) { items_.resize(n, value); }
  void assign(std::size_t n, const T& value) { items_.assign(n, value); }
  auto begin() { return items_.begin(); }
  auto end() { return items_.end(); }

 private:
  std::vector<T> items_;
};

}  // namespace vedette::engine
