#include "config/raw_object.hpp"

namespace vedette::config {

void RawObject::build_index() {
  slots = std::make_unique<std::array<std::uint32_t, k_directive_count>>();
  slots->fill(k_no_slot);
  for (std::size_t i = 0; i < attrs.size(); ++i)
    if (attrs[i].id != k_custom_variable) (*slots)[attrs[i].id] = static_cast<std::uint32_t>(i);
}

RawObject::TimeperiodParts& RawObject::timeperiod_parts() {
  if (timeperiod == nullptr) timeperiod = std::make_unique<TimeperiodParts>();
  return *timeperiod;
}

const std::vector<RawLine>& RawObject::timeperiod_lines() const {
  static const std::vector<RawLine> none;
  return timeperiod == nullptr ? none : timeperiod->lines;
}

const std::vector<std::uint32_t>& RawObject::timeperiod_templates() const {
  static const std::vector<std::uint32_t> none;
  return timeperiod == nullptr ? none : timeperiod->templates;
}

const RawAttr* RawObject::find_named(std::string_view name) const {
  const DirectiveId id = directive_id(name);
  return id == k_custom_variable ? nullptr : find(id);
}

std::string_view RawObject::get_named(std::string_view name) const {
  const RawAttr* a = find_named(name);
  return a == nullptr ? std::string_view{} : a->value;
}

ObjectStore::CustomName ObjectStore::custom_variable(std::string_view upper_name) {
  if (auto it = custom_names_.find(upper_name); it != custom_names_.end()) return {it->first, it->second};
  const std::string_view kept = keep(std::string(upper_name));
  const auto id = static_cast<std::uint32_t>(custom_names_.size());
  custom_names_.emplace(kept, id);
  custom_names_by_id_.push_back(kept);
  return {kept, id};
}

}  // namespace vedette::config
