#include "livestatus/sorter.hpp"

#include "livestatus/cell.hpp"
#include "livestatus/engine_internal.hpp"

namespace vedette::livestatus {

std::uint32_t RowSorter::add(const View& view, Row row, Cell& scratch) {
  const std::uint32_t id = added_++;
  for (const SortKey& key : keys_) {
    Value value;
    if (key.column != nullptr) {
      key.column->read(view, row, scratch);
      // The module's columns compare as their class does: numbers, times (timevals as such), strings with
      // strcmp; lists and dicts not at all. modified_attributes compares its bits.
      if (key.column->match == Match::attributes) {
        value.kind = Value::Kind::integer;
        value.integer = static_cast<std::int64_t>(attribute_mask(scratch));
      } else {
        switch (key.column->type) {
          case ColumnType::integer:
            value.kind = Value::Kind::integer;
            value.integer = cell_int(scratch);
            break;
          case ColumnType::time:
            if (scratch.kind() == Cell::Kind::floating) {
              value.kind = Value::Kind::floating;
              value.floating = scratch.as_float();
            } else {
              value.kind = Value::Kind::integer;
              value.integer = cell_int(scratch);
            }
            break;
          case ColumnType::floating:
            value.kind = Value::Kind::floating;
            value.floating = cell_double(scratch);
            break;
          case ColumnType::string:
          case ColumnType::blob: {
            const std::string_view text = cell_string(scratch);
            value.kind = Value::Kind::text;
            value.offset = text_.size();
            value.size = static_cast<std::uint32_t>(text.size());
            text_.append(text);
            break;
          }
          case ColumnType::list:
          case ColumnType::dict:
            break;
        }
      }
    }
    values_.push_back(value);
  }
  return id;
}

int RowSorter::compare_values(const Value& a, const Value& b) const {
  if (a.kind != b.kind) return 0;
  switch (a.kind) {
    case Value::Kind::none:
      return 0;
    case Value::Kind::integer:
      return a.integer == b.integer ? 0 : (a.integer > b.integer ? 1 : -1);
    case Value::Kind::floating:
      return a.floating > b.floating ? 1 : (a.floating < b.floating ? -1 : 0);
    case Value::Kind::text: {
      const std::string_view ta(text_.data() + a.offset, a.size);
      const std::string_view tb(text_.data() + b.offset, b.size);
      const int c = ta.compare(tb);
      return c == 0 ? 0 : (c > 0 ? 1 : -1);
    }
  }
  return 0;
}

int RowSorter::compare(std::uint32_t a, std::uint32_t b) const {
  const std::size_t n = keys_.size();
  for (std::size_t k = 0; k < n; ++k) {
    int diff = compare_values(values_[a * n + k], values_[b * n + k]);
    if (keys_[k].descending) diff = -diff;
    if (diff != 0) return diff;
  }
  return 0;
}

void RowSorter::insert(std::uint32_t id, std::int64_t limit) {
  heap_.push_back(id);
  std::size_t at = heap_.size() - 1;
  while (at != 0 && compare(heap_[(at - 1) / 2], id) < 0) {
    heap_[at] = heap_[(at - 1) / 2];
    at = (at - 1) / 2;
  }
  heap_[at] = id;
  if (limit > 0 && static_cast<std::int64_t>(heap_.size()) > limit) (void)extract();
}

std::optional<std::uint32_t> RowSorter::extract() {
  if (heap_.empty()) return std::nullopt;
  const std::uint32_t top = heap_.front();
  const std::uint32_t last = heap_.back();
  heap_.pop_back();
  if (heap_.empty()) return top;
  const std::size_t n = heap_.size();
  std::size_t at = 0;
  while (2 * at + 1 < n) {
    std::size_t child = 2 * at + 1;
    if (child + 1 < n && compare(heap_[child + 1], heap_[child]) > 0) ++child;
    if (compare(heap_[child], last) <= 0) break;
    heap_[at] = heap_[child];
    at = child;
  }
  heap_[at] = last;
  return top;
}

}  // namespace vedette::livestatus
