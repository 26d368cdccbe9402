#include "config/raw_object.hpp"

namespace vedette::config {

namespace {
constexpr std::uint16_t k_no_slot = 0xFFFF;
}

void RawObject::build_index() {
  slots = std::make_unique<std::array<std::uint16_t, k_directive_count>>();
  slots->fill(k_no_slot);
  for (std::size_t i = 0; i < attrs.size() && i < k_no_slot; ++i)
    if (attrs[i].id != k_custom_variable) (*slots)[attrs[i].id] = static_cast<std::uint16_t>(i);
}

const RawAttr* RawObject::find(DirectiveId id, std::string_view name) const {
  if (id != k_custom_variable) {
    if (slots != nullptr) {
      std::uint16_t slot = (*slots)[id];
      return slot == k_no_slot ? nullptr : &attrs[slot];
    }
    if (own.test(id))
      for (const RawAttr& a : attrs)
        if (a.id == id) return &a;
    for (const RawObject* base : bases)
      if (const RawAttr* a = base->find(id, name)) return a;
    return nullptr;
  }
  for (const RawAttr& a : attrs)
    if (a.id == id && (id != k_custom_variable || a.key == name)) return &a;
  for (const RawObject* base : bases)
    if (const RawAttr* a = base->find(id, name)) return a;
  return nullptr;
}

RawAttr* RawObject::find_own(DirectiveId id, std::string_view name) {
  for (RawAttr& a : attrs)
    if (a.id == id && (id != k_custom_variable || a.key == name)) return &a;
  return nullptr;
}

std::string_view RawObject::get(DirectiveKey key) const {
  const RawAttr* a = find(key);
  return a == nullptr ? std::string_view{} : a->value;
}

std::string_view RawObject::get_named(std::string_view name) const {
  const RawAttr* a = find_named(name);
  return a == nullptr ? std::string_view{} : a->value;
}

bool RawObject::has_value(DirectiveKey key) const {
  const RawAttr* a = find(key);
  return a != nullptr && !a->is_null;
}

}  // namespace vedette::config
