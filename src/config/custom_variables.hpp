// The custom variables a definition has once its templates are applied, in Naemon's order: its own as
// written, then for each template in `use` order the ones not yet present, taken from that template's list
// walked from its end (Naemon prepends inherited variables and reverses the list when it registers the
// object); a template's list is built the same way from its own templates. Loader thread, after
// resolve_templates(); what it returns points into the ObjectStore.
//
//   CustomVariables vars(store);
//   for (const RawAttr* a : vars.of(host_definition)) use(a->key, a->value);
#pragma once

#include "config/id_marks_internal.hpp"
#include "config/raw_object.hpp"

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace vedette::config {

class CustomVariables {
 public:
  explicit CustomVariables(const ObjectStore& store) : names_(store.custom_variable_count()) {}

  // Valid until the next call.
  const std::vector<const RawAttr*>& of(const RawObject& obj);

 private:
  // A template's list, computed once for all the objects that use it.
  const std::vector<const RawAttr*>& list_of(const RawObject& tmpl);
  void walk_templates(const RawObject& root);
  void emit(std::vector<const RawAttr*>& out) const;

  // The templates below one root, depth first, each once: node 0 is the root. A template whose list is
  // known already is a leaf standing for its whole part of the graph.
  struct Node {
    const RawObject* obj;
    const std::vector<const RawAttr*>* known;  // its list, when it is a leaf
    std::uint32_t parent;
  };
  void visit(std::uint32_t node);

  std::size_t names_;
  std::unordered_map<const RawObject*, std::vector<const RawAttr*>> lists_;
  std::vector<const RawAttr*> out_;
  // Scratch of one walk: a variable belongs to the first template in depth-first order that has it.
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> children_, first_child_;
  std::unordered_set<const RawObject*> visited_;
  internal::IdMarks claimed_;
  std::vector<std::uint32_t> owner_;  // by name id: the node that has the variable, when claimed
  internal::IdMarks present_;         // of(): the names the object has so far
};

}  // namespace vedette::config
