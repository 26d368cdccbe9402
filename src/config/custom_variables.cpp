#include "config/custom_variables.hpp"

namespace vedette::config {

namespace {
constexpr std::uint32_t k_no_node = 0xFFFFFFFF;
}

const std::vector<const RawAttr*>& CustomVariables::of(const RawObject& obj) {
  if (!obj.template_name.empty()) return list_of(obj);
  for (const RawObject* base : obj.bases) list_of(*base);  // before out_ is filled: a walk may use it
  out_.clear();
  present_.start(names_);
  for (const RawAttr& a : obj.attrs)
    if (a.id == k_custom_variable && present_.insert(a.name_id)) out_.push_back(&a);
  for (const RawObject* base : obj.bases) {
    const std::vector<const RawAttr*>& inherited = lists_.find(base)->second;
    for (auto it = inherited.rbegin(); it != inherited.rend(); ++it)
      if (present_.insert((*it)->name_id)) out_.push_back(*it);
  }
  return out_;
}

// Copying each template's list into the templates using it, as Naemon does, is quadratic in a chain of
// templates that each add a variable: 10k levels took 400 s and 2.4 GB (bench/config/load_bench.py --sizes
// tmplchain-10k). Only the lists of templates that objects use are built, each from one walk of the
// templates below it, stopping at templates whose list is known.
const std::vector<const RawAttr*>& CustomVariables::list_of(const RawObject& tmpl) {
  if (auto it = lists_.find(&tmpl); it != lists_.end()) return it->second;
  walk_templates(tmpl);
  std::vector<const RawAttr*> list;
  emit(list);
  return lists_.emplace(&tmpl, std::move(list)).first->second;
}

// Depth first, each template once, with an explicit stack. A variable belongs to the first template in
// that order that has it: the one Naemon's copying would keep.
void CustomVariables::walk_templates(const RawObject& root) {
  nodes_.clear();
  visited_.clear();
  claimed_.start(names_);
  if (owner_.size() < names_) owner_.resize(names_);
  nodes_.push_back({&root, nullptr, k_no_node});
  visited_.insert(&root);
  visit(0);
  std::vector<std::pair<std::uint32_t, std::size_t>> stack{{0, 0}};
  while (!stack.empty()) {
    const std::uint32_t node = stack.back().first;
    const RawObject& obj = *nodes_[node].obj;
    if (nodes_[node].known != nullptr || stack.back().second == obj.bases.size()) {
      stack.pop_back();
      continue;
    }
    const RawObject* base = obj.bases[stack.back().second++];
    if (!visited_.insert(base).second) continue;
    const auto known = lists_.find(base);
    const auto child = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back({base, known == lists_.end() ? nullptr : &known->second, node});
    visit(child);
    stack.push_back({child, 0});
  }
  // Each node's children, in the order they were found, side by side.
  first_child_.assign(nodes_.size() + 1, 0);
  for (std::size_t i = 1; i < nodes_.size(); ++i) ++first_child_[nodes_[i].parent + 1];
  for (std::size_t i = 1; i < first_child_.size(); ++i) first_child_[i] += first_child_[i - 1];
  std::vector<std::uint32_t> next(first_child_.begin(), first_child_.end() - 1);
  children_.resize(nodes_.size() - 1);
  for (std::uint32_t i = 1; i < nodes_.size(); ++i) children_[next[nodes_[i].parent]++] = i;
}

void CustomVariables::visit(std::uint32_t node) {
  auto claim = [&](const RawAttr& a) {
    if (claimed_.insert(a.name_id)) owner_[a.name_id] = node;
  };
  const Node& n = nodes_[node];
  if (n.known != nullptr) {
    for (const RawAttr* a : *n.known) claim(*a);
    return;
  }
  for (const RawAttr& a : n.obj->attrs)
    if (a.id == k_custom_variable) claim(a);
}

// A template's list is its own variables, then each template's list reversed: unrolled, each node gives
// its own forwards before its children (each reversed) in order, or, reversed, its children backwards (each
// forwards) and then its own backwards. Iterative, like the walk.
void CustomVariables::emit(std::vector<const RawAttr*>& out) const {
  auto own = [&](std::uint32_t node, bool forward) {
    auto take = [&](const RawAttr& a) {
      if (owner_[a.name_id] == node) out.push_back(&a);
    };
    const Node& n = nodes_[node];
    if (n.known != nullptr) {
      if (forward)
        for (const RawAttr* a : *n.known) take(*a);
      else
        for (auto it = n.known->rbegin(); it != n.known->rend(); ++it) take(**it);
      return;
    }
    const std::vector<RawAttr>& attrs = n.obj->attrs;
    if (forward) {
      for (const RawAttr& a : attrs)
        if (a.id == k_custom_variable) take(a);
    } else {
      for (auto it = attrs.rbegin(); it != attrs.rend(); ++it)
        if (it->id == k_custom_variable) take(*it);
    }
  };
  struct Frame {
    std::uint32_t node;
    bool forward;
    std::uint32_t next;  // children done
  };
  std::vector<Frame> stack{{0, true, 0}};
  own(0, /*forward=*/true);
  while (!stack.empty()) {
    Frame& f = stack.back();
    const std::uint32_t begin = first_child_[f.node];
    const std::uint32_t count = first_child_[f.node + 1] - begin;
    if (f.next < count) {
      const std::uint32_t child = children_[begin + (f.forward ? f.next : count - 1 - f.next)];
      ++f.next;
      const bool forward = !f.forward;
      if (forward) own(child, /*forward=*/true);
      stack.push_back({child, forward, 0});  // `f` is not used past this point
      continue;
    }
    if (!f.forward) own(f.node, /*forward=*/false);
    stack.pop_back();
  }
}

}  // namespace vedette::config
