#include "config/custom_variables.hpp"

namespace vedette::config {

const std::vector<const RawAttr*>& CustomVariables::of(const RawObject& obj) {
  if (!obj.template_name.empty()) return list_of(obj);
  for (const RawObject* base : obj.bases) list_of(*base);
  out_.clear();
  present_.start(templates_.names);
  for (const RawAttr& a : obj.attrs)
    if (a.id == k_custom_variable && present_.insert(a.name_id)) out_.push_back(&a);
  for (const RawObject* base : obj.bases) {
    const std::vector<const RawAttr*>& inherited = lists_.find(base)->second;
    for (auto it = inherited.rbegin(); it != inherited.rend(); ++it)
      if (present_.insert((*it)->name_id)) out_.push_back(*it);
  }
  return out_;
}

// Only the lists of templates that objects use are made, each from one walk of the templates below it.
const std::vector<const RawAttr*>& CustomVariables::list_of(const RawObject& tmpl) {
  if (auto it = lists_.find(&tmpl); it != lists_.end()) return it->second;
  std::vector<const RawAttr*> list = walker_.make(&tmpl, [&](const RawObject* t) {
    auto it = lists_.find(t);
    return it == lists_.end() ? nullptr : &it->second;
  });
  return lists_.emplace(&tmpl, std::move(list)).first->second;
}

}  // namespace vedette::config
