// Sort: for rows and Stats groups. The module keeps a binary max-heap of the rows it may print (at most
// Limit + Offset of them) and prints them by extracting the largest and reversing; rows that compare equal
// come out in the order that heap gives them, so this sorter runs the same heap to give the same order.
// A row's sort values are read once, when it is added. One sorter per query run, one thread.
//
//   RowSorter sorter(keys);
//   for (Row row : matching) sorter.insert(sorter.add(view, row, cell), limit_plus_offset);
//   while (std::optional<std::uint32_t> id = sorter.extract()) ...;  // largest first
#pragma once

#include "livestatus/table.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vedette::livestatus {

class Cell;
struct View;

struct SortKey {
  const Column* column = nullptr;  // null: an unknown column, by which all rows are equal
  bool descending = false;
};

class RowSorter {
 public:
  explicit RowSorter(std::span<const SortKey> keys) : keys_(keys.begin(), keys.end()) {}

  // Reads the sort values of `row` and returns the id of this candidate: 0, 1, 2... in the order added.
  std::uint32_t add(const View& view, Row row, Cell& scratch);
  // The module's insert: onto the heap, then, if `limit` > 0 and the heap holds more, the largest goes.
  void insert(std::uint32_t id, std::int64_t limit);
  // The largest candidate left (by the keys, descending ones reversed), or nullopt.
  [[nodiscard]] std::optional<std::uint32_t> extract();
  [[nodiscard]] std::size_t size() const { return heap_.size(); }

 private:
  struct Value {
    enum class Kind : std::uint8_t { none, integer, floating, text };
    Kind kind = Kind::none;
    std::uint32_t size = 0;  // text
    union {
      std::int64_t integer;
      double floating;
      std::uint64_t offset;  // text: into text_
    };
    Value() : integer(0) {}
  };
  [[nodiscard]] int compare(std::uint32_t a, std::uint32_t b) const;
  [[nodiscard]] int compare_values(const Value& a, const Value& b) const;

  std::vector<SortKey> keys_;
  std::vector<Value> values_;  // keys_.size() per candidate
  std::string text_;
  std::vector<std::uint32_t> heap_;
  std::uint32_t added_ = 0;
};

}  // namespace vedette::livestatus
