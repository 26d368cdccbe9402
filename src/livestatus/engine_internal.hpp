// What filter.cpp, stats.cpp and query.cpp share: a cell's value read as the module's column class would
// read it, the modified_attributes names, and the text of a value as a Stats group key. Pure functions, run
// on the query threads.
#pragma once

#include "livestatus/cell.hpp"
#include "livestatus/table.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace vedette::livestatus {

[[nodiscard]] std::int64_t cell_int(const Cell& cell);
[[nodiscard]] double cell_double(const Cell& cell);
[[nodiscard]] std::string_view cell_string(const Cell& cell);  // "" unless the cell holds a string

// modified_attributes: the bits of a reference ("6", or names joined by ','; unknown names count nothing)
// and of a cell (the number, or the list of names).
[[nodiscard]] std::uint64_t attribute_mask(std::string_view reference);
[[nodiscard]] std::uint64_t attribute_mask(const Cell& cell);

// Appends what the module's valueAsString() gives for the column: the number ("%d", "%.10e",
// "seconds.microseconds" for a float time), the string, the attribute bits, and "invalid" for lists,
// dicts and unknown columns (null), which thus fall into one group.
void append_group_key(std::string& out, const Cell& cell, const Column* column);

// A double cut to int64 as an x86 cvttsd2si does (the module's casts): out of range or NaN is INT64_MIN.
[[nodiscard]] std::int64_t truncate_to_int64(double value);

}  // namespace vedette::livestatus
