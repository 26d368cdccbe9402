// The custom variables a definition has once its templates are applied, in Naemon's order: its own as
// written, then for each template in `use` order the ones not yet present, taken from that template's list
// walked from its end (Naemon prepends inherited variables and reverses the list when it registers the
// object); a template's list is built the same way from its own templates (inherited_list_internal.hpp).
// Loader thread, after resolve_templates(); what it returns points into the ObjectStore.
//
//   CustomVariables vars(store);
//   for (const RawAttr* a : vars.of(host_definition)) use(store.custom_variable_name(a->name_id), a->value);
#pragma once

#include "config/id_marks_internal.hpp"
#include "config/inherited_list_internal.hpp"
#include "config/raw_object.hpp"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace vedette::config {

class CustomVariables {
 public:
  explicit CustomVariables(const ObjectStore& store)
      : templates_{store.custom_variable_count()}, walker_(templates_) {}

  // Valid until the next call.
  const std::vector<const RawAttr*>& of(const RawObject& obj);

 private:
  // Templates as InheritedList walks them: their custom variables, keyed by name.
  struct Templates {
    using Node = const RawObject*;
    using Item = RawAttr;
    std::size_t names;
    const std::vector<Node>& bases(Node tmpl) const { return tmpl->bases; }
    template <typename Fn>
    void for_each_item(Node tmpl, bool forward, Fn&& fn) const {
      if (forward) {
        for (const RawAttr& a : tmpl->attrs)
          if (a.id == k_custom_variable) fn(a);
        return;
      }
      for (auto it = tmpl->attrs.rbegin(); it != tmpl->attrs.rend(); ++it)
        if (it->id == k_custom_variable) fn(*it);
    }
    std::uint32_t key(const RawAttr& a) const { return a.name_id; }
    std::size_t key_count() const { return names; }
  };

  // A template's list, made once for all the objects that use it.
  const std::vector<const RawAttr*>& list_of(const RawObject& tmpl);

  Templates templates_;
  internal::InheritedList<Templates> walker_;
  std::unordered_map<const RawObject*, std::vector<const RawAttr*>> lists_;
  std::vector<const RawAttr*> out_;
  internal::IdMarks present_;  // of(): the names the object has so far
};

}  // namespace vedette::config
