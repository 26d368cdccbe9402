#include "engine/state/check_sources.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace vedette::engine {

CheckSources::CheckSources(int pid)
    : names_(std::make_shared<const std::vector<std::string>>(std::vector<std::string>{
          std::string(), fmt::format("Core Worker {}", pid), "command file worker", "Mod-Gearman Worker"})) {}

std::uint16_t CheckSources::intern(std::string_view name) {
  if (name.empty()) return k_none;
  const std::vector<std::string>& names = *names_;
  if (names[last_] == name) return last_;
  // Linear: a handful of workers is the usual farm.
  const auto it = std::find(names.begin(), names.end(), name);
  if (it != names.end()) return last_ = static_cast<std::uint16_t>(it - names.begin());
  if (names.size() >= k_max_names) return k_mod_gearman;
  auto grown = std::make_shared<std::vector<std::string>>(names);
  grown->emplace_back(name);
  names_ = std::move(grown);
  return last_ = static_cast<std::uint16_t>(names_->size() - 1);
}

}  // namespace vedette::engine
