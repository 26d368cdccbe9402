#include "config/raw_object.hpp"

namespace vedette::config {

void RawObject::build_index() {
  index = std::make_unique<std::unordered_map<std::string_view, std::uint32_t>>();
  index->reserve(attrs.size());
  for (std::uint32_t i = 0; i < attrs.size(); ++i) index->emplace(attrs[i].key, i);
}

const RawAttr* RawObject::find(std::string_view key) const {
  if (index != nullptr) {
    auto it = index->find(key);
    return it == index->end() ? nullptr : &attrs[it->second];
  }
  for (const RawAttr& a : attrs)
    if (a.key == key) return &a;
  for (const RawObject* base : bases)
    if (const RawAttr* a = base->find(key)) return a;
  return nullptr;
}

RawAttr* RawObject::find_own(std::string_view key) {
  for (RawAttr& a : attrs)
    if (a.key == key) return &a;
  return nullptr;
}

std::string_view RawObject::get(std::string_view key) const {
  const RawAttr* a = find(key);
  return a == nullptr ? std::string_view{} : a->value;
}

bool RawObject::has_value(std::string_view key) const {
  const RawAttr* a = find(key);
  return a != nullptr && !a->is_null;
}

void RawObject::set(std::string_view key, std::string_view value) {
  if (RawAttr* a = find_own(key)) {
    a->value = value;
    a->is_null = false;
    return;
  }
  attrs.push_back({key, value, false});
}

}  // namespace vedette::config
