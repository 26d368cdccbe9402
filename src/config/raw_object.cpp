#include "config/raw_object.hpp"

namespace vedette::config {

const RawAttr* RawObject::find(std::string_view key) const {
  for (const RawAttr& a : attrs)
    if (a.key == key) return &a;
  return nullptr;
}

RawAttr* RawObject::find(std::string_view key) {
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
  if (RawAttr* a = find(key)) {
    a->value = value;
    a->is_null = false;
    return;
  }
  attrs.push_back({key, value, false});
}

}  // namespace vedette::config
