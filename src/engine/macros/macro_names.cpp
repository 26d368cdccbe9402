#include "engine/macros/macro_names.hpp"

#include <algorithm>
#include <vector>

namespace vedette::engine::macro_internal {
namespace {

struct Key {
  std::string_view name;
  M code;
};

// Sorted once by name: every $MACRO$ of every check is looked up here.
const std::vector<Key>& sorted_keys() {
  static const std::vector<Key> keys = [] {
    std::vector<Key> v;
    v.reserve(k_names.size());
    for (std::size_t i = 0; i < k_names.size(); ++i) v.push_back({k_names[i], static_cast<M>(i)});
    std::sort(v.begin(), v.end(), [](const Key& a, const Key& b) { return a.name < b.name; });
    return v;
  }();
  return keys;
}

}  // namespace

std::optional<M> find_code(std::string_view name) {
  const std::vector<Key>& keys = sorted_keys();
  auto it = std::lower_bound(keys.begin(), keys.end(), name,
                             [](const Key& k, std::string_view n) { return k.name < n; });
  if (it == keys.end() || it->name != name) return std::nullopt;
  return it->code;
}

}  // namespace vedette::engine::macro_internal
