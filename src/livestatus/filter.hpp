// Compiled Filter:, WaitCondition: and Stats: conditions over one table. Each condition becomes a typed test
// once (reference value converted, regular expression compiled), so a row costs a column read and a
// comparison, and no allocation once the scratch buffers have grown. Built by one thread, then read-only:
// accepts() may run on any thread, with one FilterScratch per thread.
//
// The tests, as naemon-livestatus's filters (the operator `>=` is `<` negated, `<=` is `>` negated):
//   int, time    =, >, < on the number (the reference read as atoi does); other operators accept every row
//   float        the same, the reference read as atof does
//   string, blob =, =~ (ASCII case-insensitive), ~ and ~~ (POSIX extended regex, ~~ case-insensitive;
//                a '{' or '}' is refused, and what cannot match in linear time: regex.hpp), >, < (byte order)
//   list         >= contains (an entry's first element equals the reference), < does not contain,
//                = with an empty reference: the list is empty (!=: is not); = with a reference accepts no
//                row; other operators accept every row
//   dict         "NAME value": the string tests on variable NAME's value ("" when the row has none)
//   Column::match overrides these (table.hpp); an unknown column accepts no row.
#pragma once

#include "livestatus/cell.hpp"
#include "livestatus/regex.hpp"
#include "livestatus/request.hpp"
#include "livestatus/table.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vedette::livestatus {

struct View;

// Per thread: the cell a test reads into.
struct FilterScratch {
  Cell cell;
};

class FilterSet {
 public:
  using Node = std::uint32_t;

  FilterSet();
  ~FilterSet();
  FilterSet(FilterSet&&) noexcept;
  FilterSet& operator=(FilterSet&&) noexcept;

  // A test of one column of `table`; an unknown column name gives a test no row passes. nullopt with
  // `error` as the module words it: the column takes no filter, or the regular expression is refused.
  [[nodiscard]] std::optional<Node> add_test(const Table& table, const Condition& condition,
                                             RequestError& error);
  // How deep combinations may nest (after And: of And:s, Or: of Or:s and Negate: of Negate: are folded):
  // accepts() recurses once per level, and a query thread's stack must hold every level. No client
  // nests more than a few levels; a deeper request is refused with 400.
  static constexpr std::uint32_t k_max_depth = 1000;

  Node add_all(std::span<const Node> children);  // no children: every row
  Node add_any(std::span<const Node> children);  // no children: no row
  Node add_not(Node child);
  // Whether `node` nests at most k_max_depth levels; too_deep() is the 400 to answer otherwise.
  [[nodiscard]] bool within_depth(Node node) const;
  [[nodiscard]] static RequestError too_deep(std::string_view what, std::string_view header);
  // Runs a Filter:/And:/Or:/Negate: program and ands what is left on its stack (an empty program accepts
  // every row). `what` names the headers in errors ("" or "WaitCondition").
  [[nodiscard]] std::optional<Node> add_program(const Table& table, std::span<const FilterStep> steps,
                                                std::string_view what, RequestError& error);

  [[nodiscard]] bool accepts(Node node, const View& view, Row row, FilterScratch& scratch) const;
  // Whether `node` is an `and` of nothing, which accepts every row without reading one.
  [[nodiscard]] bool accepts_all(Node node) const;

  // What `node` tells of an integer or time column without reading a row, for RowHints: every row it
  // accepts has from <= value < until, narrowed from the [from, until) given. Tests of the column with =,
  // <, >, <= and >= count, through And: and Or:; anything else (Negate:, !=) leaves the range wider.
  void narrow_range(Node node, const Column* column, std::int64_t& from, std::int64_t& until) const;
  // The same for small values: bit v is set when a row it accepts may hold v (0 <= v <= 31).
  [[nodiscard]] std::uint32_t possible_values(Node node, const Column* column) const;

 private:
  struct Test;
  enum class NodeKind : std::uint8_t;
  struct NodeData;
  Node add_combination(NodeKind kind, std::span<const Node> children);
  [[nodiscard]] bool passes(const Test& test, const View& view, Row row, FilterScratch& scratch) const;

  std::vector<NodeData> nodes_;
  std::vector<Node> children_;
  std::vector<Test> tests_;
};

}  // namespace vedette::livestatus
