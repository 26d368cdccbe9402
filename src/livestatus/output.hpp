// Writes a query's answer in the module's output formats (CSV with the request's separators, JSON, Python,
// Python 3, wrapped JSON), appending to one caller's string. One writer per query run, one thread.
//
//   OutputWriter writer(OutputFormat::json, Separators{}, body);
//   writer.begin_headers(); writer.write_string("name"); writer.end_headers();
//   writer.begin_row(); writer.write_cell(cell, column, 0); writer.end_row();
//   writer.finish(1);  // "[["name"],\n["web"]]\n"
#pragma once

#include "livestatus/request.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace vedette::livestatus {

class Cell;
struct Column;

class OutputWriter {
 public:
  // `out` must outlive the writer; what is written is appended to it.
  OutputWriter(OutputFormat format, const Separators& separators, std::string& out);

  // The frame around the rows: either the header row (begin_headers, the names, end_headers) or
  // begin_rows_without_headers, then the rows, then finish. total_count is wrapped_json's "total_count".
  void begin_headers();
  void end_headers();
  void begin_rows_without_headers();
  void finish(std::uint64_t total_count);

  void begin_row();
  void end_row();
  void field_separator();

  void write_int(std::int64_t value);
  void write_double(double value);  // as printf's "%.10e", the module's only float format
  void write_string(std::string_view value);
  // A column's value. The column (null: an unknown column, whose cell is none) decides what the cell
  // alone cannot: a time column's value is shifted by `timezone_offset` (Localtime:), and printed as
  // "seconds.microseconds" when the cell holds a float (last_update); an attributes column's list is
  // separated as a sublist in CSV.
  void write_cell(const Cell& cell, const Column* column, int timezone_offset);

  [[nodiscard]] std::size_t size() const { return out_.size(); }

 private:
  void write_quoted(std::string_view value);
  void write_timeval(double seconds, int timezone_offset);
  [[nodiscard]] bool is_csv() const { return format_ == OutputFormat::csv; }

  OutputFormat format_;
  Separators separators_;
  std::string& out_;
  bool need_row_separator_ = false;
};

// Appends "%.10e" of `value`, the module's text of a float (also its Stats group key of a float column).
void append_double(std::string& out, double value);

}  // namespace vedette::livestatus
