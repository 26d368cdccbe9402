// Where each object's last result came from, as Naemon's check_source (Livestatus shows it; Thruk too):
// "Core Worker <pid>" for checks run here, "command file worker" for passive results, the worker's
// source= for Mod-Gearman results. The names are few, so an object keeps a 16-bit index (CheckState::
// check_source) and snapshots share the table. Core thread only; names() may be handed to any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::engine {

class CheckSources {
 public:
  static constexpr std::uint16_t k_none = 0;          // never checked: ""
  static constexpr std::uint16_t k_core_worker = 1;   // "Core Worker <pid>"
  static constexpr std::uint16_t k_command_file = 2;  // "command file worker"
  // "Mod-Gearman Worker", the NEB module's name for every result: for a result whose source= is "(null)"
  // (the C worker's timeouts), and for names past k_max_names.
  static constexpr std::uint16_t k_mod_gearman = 3;

  explicit CheckSources(int pid);

  // The index of `name`; an empty name is k_none. Past k_max_names distinct names (a farm of thousands of
  // workers, say), new ones share k_mod_gearman rather than grow the table without bound.
  [[nodiscard]] std::uint16_t intern(std::string_view name);
  // Indexed by the indices intern() gave; a new name copies the table, so a snapshot's stays as it was.
  [[nodiscard]] std::shared_ptr<const std::vector<std::string>> names() const { return names_; }

  static constexpr std::size_t k_max_names = 4096;

 private:
  std::shared_ptr<const std::vector<std::string>> names_;
  std::uint16_t last_ = k_none;  // results from one worker come in runs
};

}  // namespace vedette::engine
