#include "livestatus/filter.hpp"

#include "livestatus/engine_internal.hpp"
#include "livestatus/text_internal.hpp"
#include "livestatus/view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <utility>

namespace vedette::livestatus {

// ---------------------------------------------------------------------------------------------------------
// FilterSet

namespace {

enum class TestKind : std::uint8_t {
  integer,
  floating,
  string,
  list,
  host_service_list,
  dict,
  attributes,
  never,
  unknown
};

bool is_regex(Operator op) {
  return op == Operator::regex || op == Operator::regex_icase;
}

template <typename T>
bool compare(Operator op, T actual, T reference) {
  switch (op) {
    case Operator::equal:
      return actual == reference;
    case Operator::greater:
      return actual > reference;
    case Operator::less:
      return actual < reference;
    case Operator::regex:
    case Operator::equal_icase:
    case Operator::regex_icase:
      return true;  // the module's "not implemented" answer
  }
  return true;
}

}  // namespace

struct FilterSet::Test {
  const Column* column = nullptr;
  TestKind kind = TestKind::unknown;
  Operator op = Operator::equal;
  bool negate = false;
  std::int64_t int_reference = 0;
  double float_reference = 0;
  std::uint64_t mask_reference = 0;
  std::string
      reference;    // string and list tests; dict: the text after the variable name; host|service: service
  std::string key;  // dict: the variable name; host|service: the host
  std::unique_ptr<Regex> regex;
};

enum class FilterSet::NodeKind : std::uint8_t { test, all, any, negate };

struct FilterSet::NodeData {
  using Kind = NodeKind;
  Kind kind = Kind::test;
  std::uint32_t first = 0;  // test: index into tests_; negate: the child; all, any: into children_
  std::uint32_t count = 0;
  std::uint32_t depth = 1;  // levels of nodes from this one down to its deepest test, itself included
};

FilterSet::FilterSet() = default;
FilterSet::~FilterSet() = default;
FilterSet::FilterSet(FilterSet&&) noexcept = default;
FilterSet& FilterSet::operator=(FilterSet&&) noexcept = default;

std::optional<FilterSet::Node> FilterSet::add_test(const Table& table, const Condition& condition,
                                                   RequestError& error) {
  Test test;
  test.column = table.find(condition.column);
  test.op = condition.op;
  test.negate = condition.negate;
  const std::string& value = condition.value;
  std::string_view pattern = value;  // what a regex test matches with
  if (test.column != nullptr) {
    switch (test.column->match) {
      case Match::by_type:
        switch (test.column->type) {
          case ColumnType::integer:
          case ColumnType::time:
            test.kind = TestKind::integer;
            break;
          case ColumnType::floating:
            test.kind = TestKind::floating;
            break;
          case ColumnType::string:
          case ColumnType::blob:
            test.kind = TestKind::string;
            break;
          case ColumnType::list:
            test.kind = TestKind::list;
            break;
          case ColumnType::dict:
            test.kind = TestKind::dict;
            break;
        }
        break;
      case Match::host_service:
        test.kind = TestKind::host_service_list;
        break;
      case Match::attributes:
        test.kind = TestKind::attributes;
        break;
      case Match::never:
        test.kind = TestKind::never;
        break;
      case Match::none:
        error =
            RequestError{.code = 400, .message = fmt::format("cannot create filter on table {}", table.name)};
        return std::nullopt;
    }
  }
  switch (test.kind) {
    case TestKind::integer:
    case TestKind::list:
      test.int_reference = parse_int64(value);
      test.reference = value;
      break;
    case TestKind::floating:
      test.float_reference = std::strtod(value.c_str(), nullptr);
      break;
    case TestKind::string:
      test.reference = value;
      break;
    case TestKind::host_service_list: {
      const std::size_t bar = value.find('|');
      if (bar != std::string::npos) {
        test.key = value.substr(0, bar);
        test.reference = value.substr(bar + 1);
      }
      break;
    }
    case TestKind::dict: {
      std::string_view rest = value;
      std::size_t end = 0;
      while (end < rest.size() && !is_space(rest[end])) ++end;
      test.key = std::string(rest.substr(0, end));
      pattern = lstrip(rest.substr(end));
      test.reference = std::string(pattern);
      break;
    }
    case TestKind::attributes:
      test.mask_reference = attribute_mask(value);
      break;
    case TestKind::never:
    case TestKind::unknown:
      break;
  }
  if ((test.kind == TestKind::string || test.kind == TestKind::dict) && is_regex(test.op)) {
    if (pattern.find_first_of("{}") != std::string_view::npos) {
      error = RequestError{
          .code = 400,
          .message = fmt::format(
              "error in Filter header: disallowed regular expression '{}': must not contain {{ or }}",
              value)};
      return std::nullopt;
    }
    test.regex = std::make_unique<Regex>();
    if (std::optional<RegexError> refused = test.regex->compile(pattern, test.op == Operator::regex_icase)) {
      error = RequestError{
          .code = 400,
          .message = refused->unsupported
                         ? fmt::format("error in Filter header: unsupported regular expression '{}': {}",
                                       value, refused->message)
                         : fmt::format("error in Filter header: invalid regular expression '{}'", value)};
      return std::nullopt;
    }
  }
  tests_.push_back(std::move(test));
  nodes_.push_back(
      NodeData{.kind = NodeData::Kind::test, .first = static_cast<std::uint32_t>(tests_.size() - 1)});
  return static_cast<Node>(nodes_.size() - 1);
}

FilterSet::Node FilterSet::add_all(std::span<const Node> children) {
  return add_combination(NodeData::Kind::all, children);
}

FilterSet::Node FilterSet::add_any(std::span<const Node> children) {
  return add_combination(NodeData::Kind::any, children);
}

// And: of And:s and Or: of Or:s are one level: a chain of `Or: 2` (or `And: 2`) as some clients build a
// long list must not nest once per line, as each level costs a frame of accepts()' recursion. A child of
// the same kind whose children are the last ones in children_ (always so in such a chain) is extended in
// place, so the chain builds in linear time; any other child nests, and depth() counts it. The order of a
// combination's children changes no answer: tests have no side effects.
FilterSet::Node FilterSet::add_combination(NodeKind kind, std::span<const Node> children) {
  const auto extends = [&](Node child) {
    const NodeData& d = nodes_[child];
    return d.kind == kind && d.count > 0 && d.first + d.count == children_.size();
  };
  const auto spliced = std::find_if(children.begin(), children.end(), extends);
  NodeData node{.kind = kind, .first = static_cast<std::uint32_t>(children_.size())};
  if (spliced != children.end()) node = nodes_[*spliced];
  for (auto it = children.begin(); it != children.end(); ++it) {
    if (it == spliced) continue;
    children_.push_back(*it);
    ++node.count;
    node.depth = std::max(node.depth, nodes_[*it].depth + 1);
  }
  nodes_.push_back(node);
  return static_cast<Node>(nodes_.size() - 1);
}

FilterSet::Node FilterSet::add_not(Node child) {
  // Negate: twice is no negation: a chain of Negate: lines adds no level.
  if (nodes_[child].kind == NodeData::Kind::negate) return nodes_[child].first;
  nodes_.push_back(
      NodeData{.kind = NodeData::Kind::negate, .first = child, .depth = nodes_[child].depth + 1});
  return static_cast<Node>(nodes_.size() - 1);
}

bool FilterSet::within_depth(Node node) const {
  return nodes_[node].depth <= k_max_depth;
}

std::optional<FilterSet::Node> FilterSet::add_program(const Table& table, std::span<const FilterStep> steps,
                                                      std::string_view what, RequestError& error) {
  std::vector<Node> stack;
  std::vector<Node> taken;
  for (const FilterStep& step : steps) {
    switch (step.kind) {
      case FilterStep::Kind::test: {
        const std::optional<Node> node = add_test(table, step.condition, error);
        if (!node) return std::nullopt;
        stack.push_back(*node);
        break;
      }
      case FilterStep::Kind::all:
      case FilterStep::Kind::any: {
        const bool is_or = step.kind == FilterStep::Kind::any;
        if (step.count < 0 || static_cast<std::size_t>(step.count) > stack.size()) {
          error = RequestError{
              .code = 400,
              .message = fmt::format(
                  "error in {}{} header: Cannot combine {} filters with '{}': only {} are on stack", what,
                  is_or ? "Or" : "And", step.count, is_or ? "OR" : "AND", stack.size())};
          return std::nullopt;
        }
        // As the module, the last filter on the stack becomes the first of the combination (unless
        // add_combination extends a chain).
        taken.assign(stack.rbegin(), stack.rbegin() + step.count);
        stack.resize(stack.size() - static_cast<std::size_t>(step.count));
        stack.push_back(is_or ? add_any(taken) : add_all(taken));
        if (!within_depth(stack.back())) {
          error = too_deep(what, is_or ? "Or" : "And");
          return std::nullopt;
        }
        break;
      }
      case FilterStep::Kind::negate:
        if (stack.empty()) {
          error = RequestError{.code = 400,
                               .message = what.empty() ? "Negate: no Filter: header to negate"
                                                       : "Negate: no Wait:-condition negate"};
          return std::nullopt;
        }
        stack.back() = add_not(stack.back());
        if (!within_depth(stack.back())) {
          error = too_deep(what, "Negate");
          return std::nullopt;
        }
        break;
    }
  }
  if (stack.size() == 1) return stack.front();  // an and of one: itself, without a level
  const Node all = add_all(stack);
  if (!within_depth(all)) {
    error = too_deep(what, "Filter");
    return std::nullopt;
  }
  return all;
}

RequestError FilterSet::too_deep(std::string_view what, std::string_view header) {
  return RequestError{.code = 400,
                      .message = fmt::format("error in {}{} header: filters nested more than {} levels deep",
                                             what, header, k_max_depth)};
}

bool FilterSet::accepts_all(Node node) const {
  return nodes_[node].kind == NodeData::Kind::all && nodes_[node].count == 0;
}

namespace {

struct IntRange {
  std::int64_t from = std::numeric_limits<std::int64_t>::min();
  std::int64_t until = std::numeric_limits<std::int64_t>::max();
  [[nodiscard]] bool empty() const { return from >= until; }
};

std::int64_t plus_one(std::int64_t v) {
  return v == std::numeric_limits<std::int64_t>::max() ? v : v + 1;
}

}  // namespace

void FilterSet::narrow_range(Node node, const Column* column, std::int64_t& from, std::int64_t& until) const {
  // [from, until) of the values a row `n` accepts may hold; the whole range when it cannot tell.
  const auto range_of = [&](const auto& self, Node n) -> IntRange {
    const NodeData& data = nodes_[n];
    switch (data.kind) {
      case NodeData::Kind::test: {
        const Test& t = tests_[data.first];
        if (t.column != column || column == nullptr || t.kind != TestKind::integer) return {};
        const std::int64_t v = t.int_reference;
        IntRange r;
        if (t.op == Operator::equal && !t.negate) {
          r.from = v;
          r.until = plus_one(v);
        } else if (t.op == Operator::greater) {
          (t.negate ? r.until : r.from) = plus_one(v);  // <= v, or > v
        } else if (t.op == Operator::less) {
          (t.negate ? r.from : r.until) = v;  // >= v, or < v
        }
        return r;
      }
      case NodeData::Kind::negate:
        return {};
      case NodeData::Kind::all: {
        IntRange r;
        for (std::uint32_t i = 0; i < data.count; ++i) {
          const IntRange c = self(self, children_[data.first + i]);
          r.from = std::max(r.from, c.from);
          r.until = std::min(r.until, c.until);
        }
        return r;
      }
      case NodeData::Kind::any: {
        IntRange r{.from = std::numeric_limits<std::int64_t>::max(),
                   .until = std::numeric_limits<std::int64_t>::min()};
        for (std::uint32_t i = 0; i < data.count; ++i) {
          const IntRange c = self(self, children_[data.first + i]);
          if (c.empty()) continue;
          r.from = std::min(r.from, c.from);
          r.until = std::max(r.until, c.until);
        }
        return r;
      }
    }
    return {};
  };
  const IntRange r = range_of(range_of, node);
  from = std::max(from, r.from);
  until = std::min(until, r.until);
}

std::uint32_t FilterSet::possible_values(Node node, const Column* column) const {
  const NodeData& data = nodes_[node];
  switch (data.kind) {
    case NodeData::Kind::test: {
      const Test& t = tests_[data.first];
      if (t.column != column || column == nullptr || t.kind != TestKind::integer) return 0xFFFF'FFFFu;
      std::uint32_t mask = 0;
      for (std::int64_t v = 0; v < 32; ++v)
        if (compare(t.op, v, t.int_reference) != t.negate) mask |= 1u << v;
      return mask;
    }
    case NodeData::Kind::negate:
      return 0xFFFF'FFFFu;
    case NodeData::Kind::all: {
      std::uint32_t mask = 0xFFFF'FFFFu;
      for (std::uint32_t i = 0; i < data.count; ++i)
        mask &= possible_values(children_[data.first + i], column);
      return mask;
    }
    case NodeData::Kind::any: {
      std::uint32_t mask = 0;
      for (std::uint32_t i = 0; i < data.count; ++i)
        mask |= possible_values(children_[data.first + i], column);
      return mask;
    }
  }
  return 0xFFFF'FFFFu;
}

bool FilterSet::accepts(Node node, const View& view, Row row, FilterScratch& scratch) const {
  const NodeData& data = nodes_[node];
  switch (data.kind) {
    case NodeData::Kind::test:
      return passes(tests_[data.first], view, row, scratch);
    case NodeData::Kind::negate:
      return !accepts(data.first, view, row, scratch);
    case NodeData::Kind::all:
      for (std::uint32_t i = 0; i < data.count; ++i)
        if (!accepts(children_[data.first + i], view, row, scratch)) return false;
      return true;
    case NodeData::Kind::any:
      for (std::uint32_t i = 0; i < data.count; ++i)
        if (accepts(children_[data.first + i], view, row, scratch)) return true;
      return false;
  }
  return false;
}

namespace {

bool string_passes(Operator op, std::string_view actual, std::string_view reference, const Regex* regex) {
  switch (op) {
    case Operator::equal:
      return actual == reference;
    case Operator::equal_icase:
      return equals_icase(actual, reference);
    case Operator::regex:
    case Operator::regex_icase:
      return regex != nullptr && regex->matches(actual);
    case Operator::greater:
      return actual > reference;
    case Operator::less:
      return actual < reference;
  }
  return true;
}

std::string_view dict_value(const Cell& cell, std::string_view key) {
  if (cell.kind() != Cell::Kind::dict) return {};
  for (const Cell::Item& item : cell.items()) {
    const std::span<const Cell::Atom> atoms = cell.atoms_of(item);
    if (atoms.size() == 2 && cell.text_of(atoms[0]) == key) return cell.text_of(atoms[1]);
  }
  return {};
}

bool atom_is(const Cell& cell, const Cell::Atom& atom, std::string_view text, std::int64_t number) {
  return atom.is_int ? atom.value == number : cell.text_of(atom) == text;
}

}  // namespace

bool FilterSet::passes(const Test& test, const View& view, Row row, FilterScratch& scratch) const {
  switch (test.kind) {
    case TestKind::unknown:
      return false;  // the module's filter on a dummy column
    case TestKind::never:
      return test.negate;
    default:
      break;
  }
  Cell& cell = scratch.cell;
  test.column->read(view, row, cell);
  switch (test.kind) {
    case TestKind::integer:
      return compare(test.op, cell_int(cell), test.int_reference) != test.negate;
    case TestKind::floating:
      return compare(test.op, cell_double(cell), test.float_reference) != test.negate;
    case TestKind::string:
      return string_passes(test.op, cell_string(cell), test.reference, test.regex.get()) != test.negate;
    case TestKind::dict:
      return string_passes(test.op, dict_value(cell, test.key), test.reference, test.regex.get()) !=
             test.negate;
    case TestKind::attributes: {
      const std::uint64_t actual = attribute_mask(cell);
      const std::uint64_t reference = test.mask_reference;
      bool pass = true;
      switch (test.op) {
        case Operator::equal:
          pass = actual == reference;
          break;
        case Operator::greater:
          pass = actual > reference;
          break;
        case Operator::less:
          pass = actual < reference;
          break;
        case Operator::regex:
          pass = (actual & reference) == reference;
          break;
        case Operator::regex_icase:
          pass = (actual & reference) != 0;
          break;
        case Operator::equal_icase:
          break;
      }
      return pass != test.negate;
    }
    case TestKind::list:
    case TestKind::host_service_list: {
      const bool host_service = test.kind == TestKind::host_service_list;
      const std::span<const Cell::Item> items =
          cell.kind() == Cell::Kind::list ? cell.items() : std::span<const Cell::Item>();
      if (test.op == Operator::equal) {
        // An empty reference (for host|service lists: one without a host) asks whether the list is empty.
        const bool empty_reference = host_service ? test.key.empty() : test.reference.empty();
        if (empty_reference) return items.empty() != test.negate;
        return host_service;  // the module's service lists accept, its other lists refuse
      }
      if (test.op != Operator::less) return true;
      bool contains = false;
      for (const Cell::Item& item : items) {
        const std::span<const Cell::Atom> atoms = cell.atoms_of(item);
        if (host_service) {
          contains = atoms.size() >= 2 && !atoms[0].is_int && !atoms[1].is_int &&
                     cell.text_of(atoms[0]) == test.key && cell.text_of(atoms[1]) == test.reference;
        } else {
          contains = !atoms.empty() && atom_is(cell, atoms[0], test.reference, test.int_reference);
        }
        if (contains) break;
      }
      return contains == test.negate;  // `<` asks for "does not contain", `>=` (negated) for "contains"
    }
    case TestKind::never:
    case TestKind::unknown:
      break;
  }
  return false;
}

}  // namespace vedette::livestatus
