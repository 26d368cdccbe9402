// A depth-first walk over a graph of dense ids, with an explicit stack: group-in-group chains, parent
// chains and dependency chains come from the configuration and may be any length (one call per level
// overflowed the call stack at 100k). Shared by config/model_builder*.cpp and config/naemon_order.cpp.
// Loader thread.
#pragma once

#include <cstdint>
#include <vector>

namespace vedette::config::internal {

inline constexpr std::uint32_t k_no_parent = 0xFFFFFFFF;

// Enters each node once, from each of `roots` in order (nodes already entered are skipped), following
// edges(node) (a vector of ids) in order. An edge to a node already entered calls reached(from, to, open),
// open when `to` is still on the path, that is, the edge closes a cycle. When a node's edges are done,
// left(node, parent) runs, parent being k_no_parent for a root.
template <typename Roots, typename Edges, typename Reached, typename Left>
void walk_depth_first(std::size_t count, const Roots& roots, Edges&& edges, Reached&& reached, Left&& left) {
  enum class State : std::uint8_t { fresh, open, done };
  std::vector<State> state(count, State::fresh);
  struct Frame {
    std::uint32_t node;
    std::size_t next_edge;
  };
  std::vector<Frame> stack;
  for (const std::uint32_t root : roots) {
    if (state[root] != State::fresh) continue;
    state[root] = State::open;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      const std::uint32_t node = stack.back().node;
      const auto& out = edges(node);
      if (stack.back().next_edge < out.size()) {
        const std::uint32_t to = out[stack.back().next_edge++];
        if (state[to] == State::fresh) {
          state[to] = State::open;
          stack.push_back({to, 0});
        } else {
          reached(node, to, state[to] == State::open);
        }
        continue;
      }
      state[node] = State::done;
      stack.pop_back();
      left(node, stack.empty() ? k_no_parent : stack.back().node);
    }
  }
}

}  // namespace vedette::config::internal
