// The hot state of every host or every service, indexed like the model's, remembering when each object was
// last handed out for writing. The snapshot builder recycles the memory of an earlier snapshot and copies
// only the objects handed out since it was filled, so a status.dat dump or a Livestatus snapshot costs what
// changed, not the number of objects (issue 36: the core thread's cost per check was 4x at 100k services
// what it was at 10k, half of it copying every object every status_update_interval). Core thread only.
//
//   StateTable<ServiceState> services;
//   services[i].current_state = 2;        // non-const access: service i counts as changed
//   const ServiceState& s = std::as_const(services)[i];  // reading: not marked
//   if (services.changes().since(i, filled_at)) copy(i);  // the builder
//
// Any non-const element access marks its object, read or not; whole-table writes (the vector(), a
// non-const walk) mark every object. A reference kept across a snapshot and written through later would go
// unseen: take one for the work at hand only. VEDETTE_VERIFY_SNAPSHOTS=1 compares every incremental
// snapshot with a full one (the integration tests run with it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace vedette::engine {

// When objects last changed, in generations: a snapshot build ends one (seal()). Shared by a table's
// readers; the builder compares a recycled snapshot's generation with each object's mark.
class ChangeMarks {
 public:
  using Generation = std::uint64_t;

  // Whether object `i` may differ from what a snapshot filled at `filled_at` holds.
  [[nodiscard]] bool since(std::size_t i, Generation filled_at) const {
    return all_ > filled_at || (i < marks_.size() && marks_[i] > filled_at);
  }
  [[nodiscard]] bool all_since(Generation filled_at) const { return all_ > filled_at; }
  [[nodiscard]] Generation current() const { return now_; }
  // What a snapshot taken now is filled at; later changes are marked with a later generation.
  Generation seal() const { return now_++; }

 private:
  template <typename State>
  friend class StateTable;
  void mark(std::size_t i, std::size_t size) {
    if (i >= marks_.size()) fit(size);
    marks_[i] = now_;
  }
  void mark_all(std::size_t size) {
    all_ = now_;
    marks_.assign(size, now_);
  }
  void fit(std::size_t size) {
    if (marks_.size() != size) mark_all(size);
  }

  std::vector<Generation> marks_;
  Generation all_ = 1;
  mutable Generation now_ = 1;  // bookkeeping of the builds, not state
};

template <typename State>
class StateTable {
 public:
  [[nodiscard]] std::size_t size() const { return states_.size(); }
  [[nodiscard]] bool empty() const { return states_.empty(); }

  [[nodiscard]] const State& operator[](std::size_t i) const { return states_[i]; }
  [[nodiscard]] State& operator[](std::size_t i) {
    changes_.mark(i, states_.size());
    return states_[i];
  }

  [[nodiscard]] typename std::vector<State>::const_iterator begin() const { return states_.begin(); }
  [[nodiscard]] typename std::vector<State>::const_iterator end() const { return states_.end(); }
  [[nodiscard]] typename std::vector<State>::iterator begin() { return vector().begin(); }
  [[nodiscard]] typename std::vector<State>::iterator end() { return states_.end(); }

  // Every object, read-only (snapshot sources, walks that change nothing).
  [[nodiscard]] const std::vector<State>& all() const { return states_; }
  // Every object, to change as a whole (a reload, retention.dat, a resize): all count as changed.
  [[nodiscard]] std::vector<State>& vector() {
    changes_.mark_all(states_.size());
    return states_;
  }
  [[nodiscard]] const ChangeMarks& changes() const {
    changes_.fit(states_.size());
    return changes_;
  }

 private:
  std::vector<State> states_;
  mutable ChangeMarks changes_;
};

}  // namespace vedette::engine
