// The list a definition inherits through its templates the way Naemon builds custom variables and timeperiod
// exceptions: its own items as written, then for each template in `use` order that template's list walked
// from its end, each item skipped whose key is already present (a template's own items written twice
// collapse to the one written last); a template's list is built the same way from its own templates.
// Copying each template's list into the templates using it, as Naemon does, is quadratic in a chain of
// templates that each add an item: 10k levels of custom variables took 400 s and 2.4 GB
// (bench/config/load_bench.py --sizes tmplchain-10k). Here a list is made from one walk of the templates
// below it: an item belongs to the first template in depth-first order with its key, and unrolling the
// reversals orders them. A walk stops at templates whose list it was given. Loader thread.
//
// Source describes the templates: Node (a copyable, hashable handle), Item, and
//   const std::vector<Node>& bases(Node)                       the templates, in `use` order
//   void for_each_item(Node, bool forward, Fn&& fn(const Item&))  its own items, as written or reversed
//   std::uint32_t key(const Item&)                              dense, below Source::key_count()
#pragma once

#include "config/id_marks_internal.hpp"

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace vedette::config::internal {

template <typename Source>
class InheritedList {
 public:
  using Node = typename Source::Node;
  using Item = typename Source::Item;
  using List = std::vector<const Item*>;

  explicit InheritedList(const Source& source) : source_(source) {}

  // The list of `root`; `known` gives the lists already made (a pointer, or null), which the walk does
  // not enter. The templates it walked, in depth-first order, are preorder() until the next call.
  template <typename Known>
  List make(Node root, Known&& known) {
    walk(root, known);
    List out;
    emit(out);
    return out;
  }

  struct Visited {
    Node node;
    const List* known;  // its list, when the walk did not enter it
  };
  [[nodiscard]] const std::vector<Visited>& preorder() const { return visited_; }

 private:
  static constexpr std::uint32_t k_no_node = 0xFFFFFFFF;

  template <typename Known>
  void walk(Node root, Known&& known) {
    visited_.clear();
    parent_.clear();
    seen_.clear();
    claimed_.start(source_.key_count());
    if (owner_.size() < source_.key_count()) owner_.resize(source_.key_count());
    enter(root, nullptr, k_no_node);
    std::vector<std::pair<std::uint32_t, std::size_t>> stack{{0, 0}};  // a node, its bases done
    while (!stack.empty()) {
      const std::uint32_t at = stack.back().first;
      const std::vector<Node>& bases = source_.bases(visited_[at].node);
      if (visited_[at].known != nullptr || stack.back().second == bases.size()) {
        stack.pop_back();
        continue;
      }
      const Node base = bases[stack.back().second++];
      if (seen_.contains(base)) continue;
      enter(base, known(base), at);
      stack.push_back({static_cast<std::uint32_t>(visited_.size() - 1), 0});
    }
    // Each node's children, in the order they were found, side by side.
    first_child_.assign(visited_.size() + 1, 0);
    for (std::size_t i = 1; i < visited_.size(); ++i) ++first_child_[parent_[i] + 1];
    for (std::size_t i = 1; i < first_child_.size(); ++i) first_child_[i] += first_child_[i - 1];
    std::vector<std::uint32_t> next(first_child_.begin(), first_child_.end() - 1);
    children_.resize(visited_.size() - 1);
    for (std::uint32_t i = 1; i < visited_.size(); ++i) children_[next[parent_[i]]++] = i;
  }

  // Claims the keys a node brings. The root keeps all its own items, duplicates included; below it an
  // item written later wins over an earlier one with the same key.
  void enter(Node node, const List* known, std::uint32_t parent) {
    const auto at = static_cast<std::uint32_t>(visited_.size());
    visited_.push_back({node, known});
    parent_.push_back(parent);
    seen_.insert(node);
    auto claim = [&](const Item& item) {
      const std::uint32_t key = source_.key(item);
      if (claimed_.insert(key)) owner_[key] = {at, &item};
    };
    if (known != nullptr) {
      for (auto it = known->rbegin(); it != known->rend(); ++it) claim(**it);
      return;
    }
    source_.for_each_item(node, /*forward=*/at == 0, claim);
  }

  // A list is a node's own items, then each child's list reversed: unrolled, each node gives its own
  // forwards before its children (each reversed) in order, or, reversed, its children backwards (each
  // forwards) and then its own backwards.
  void emit(List& out) const {
    auto own = [&](std::uint32_t at, bool forward) {
      auto take = [&](const Item& item) {
        const Owner& o = owner_[source_.key(item)];
        if (at == 0 || (o.node == at && o.item == &item)) out.push_back(&item);
      };
      if (const List* known = visited_[at].known) {
        if (forward)
          for (const Item* item : *known) take(*item);
        else
          for (auto it = known->rbegin(); it != known->rend(); ++it) take(**it);
        return;
      }
      source_.for_each_item(visited_[at].node, forward, take);
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

  struct Owner {
    std::uint32_t node;  // the position in visited_ of the template the key belongs to
    const Item* item;
  };

  const Source& source_;
  std::vector<Visited> visited_;  // preorder
  std::vector<std::uint32_t> parent_;
  std::unordered_set<Node> seen_;
  std::vector<std::uint32_t> children_, first_child_;
  IdMarks claimed_;
  std::vector<Owner> owner_;  // by key, when claimed
};

}  // namespace vedette::config::internal
