#include "livestatus/output.hpp"

#include "livestatus/cell.hpp"
#include "livestatus/table.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace vedette::livestatus {
namespace {

void append_int(std::string& out, std::int64_t value) {
  std::array<char, 24> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out.append(buffer.data(), result.ptr);
}

void append_unicode_escape(std::string& out, std::uint32_t code) {
  static constexpr std::string_view k_hex = "0123456789abcdef";
  const std::array<char, 6> text{'\\',
                                 'u',
                                 k_hex[(code >> 12) & 0xf],
                                 k_hex[(code >> 8) & 0xf],
                                 k_hex[(code >> 4) & 0xf],
                                 k_hex[code & 0xf]};
  out.append(text.data(), text.size());
}

[[nodiscard]] constexpr bool is_plain(unsigned char c) {
  return c >= 32 && c < 128 && c != '"' && c != '\\';
}

// One UTF-8 character at text[i]: its code point and length, or, where the bytes there are not one (a
// stray continuation byte, an overlong form such as C0 80 for NUL, a surrogate, beyond U+10FFFF, or cut
// short), valid == false and the length of the longest start of a character they do make (at least 1):
// Unicode's "maximal subpart", which is replaced by one U+FFFD.
struct Utf8Char {
  std::uint32_t code = 0;
  std::size_t length = 1;
  bool valid = false;
};

Utf8Char decode_utf8(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  std::size_t continuations = 0;
  std::uint32_t code = 0;
  unsigned char low = 0x80;  // the range of the first continuation byte; later ones are 80..BF
  unsigned char high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) {
    continuations = 1;
    code = lead & 0x1fu;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    continuations = 2;
    code = lead & 0x0fu;
    if (lead == 0xe0) low = 0xa0;   // else overlong
    if (lead == 0xed) high = 0x9f;  // else a surrogate
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    continuations = 3;
    code = lead & 0x07u;
    if (lead == 0xf0) low = 0x90;   // else overlong
    if (lead == 0xf4) high = 0x8f;  // else beyond U+10FFFF
  } else {
    return {};
  }
  for (std::size_t k = 1; k <= continuations; ++k) {
    if (i + k >= text.size()) return {.length = k};
    const auto b = static_cast<unsigned char>(text[i + k]);
    if (b < low || b > high) return {.length = k};
    low = 0x80;
    high = 0xbf;
    code = (code << 6) | (b & 0x3fu);
  }
  return {.code = code, .length = continuations + 1, .valid = true};
}

// JSON string escaping as the module's with data_encoding=utf8 (its default) for valid text: control
// characters as \u00XX, '"' and '\' with a backslash, each non-ASCII character as \uXXXX (above U+FFFF a
// UTF-16 surrogate pair; the module computes a wrong code point there). Where the text is not UTF-8, each
// ill-formed sequence becomes one \ufffd and the bytes after it are read on: the module drops a byte that
// starts no sequence and takes the next bytes as continuations whatever they are, so `\xe2\x82 ` became
// U+20A0 and ate the blank (docs/compatibility.md).
void append_escaped(std::string& out, std::string_view text) {
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    const std::size_t start = i;
    while (i < n && is_plain(static_cast<unsigned char>(text[i]))) ++i;
    out.append(text.data() + start, i - start);
    if (i == n) return;
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 32) {
      append_unicode_escape(out, c);
      ++i;
      continue;
    }
    if (c < 128) {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    const Utf8Char ch = decode_utf8(text, i);
    i += ch.length;
    if (!ch.valid) {
      append_unicode_escape(out, 0xfffd);
    } else if (ch.code < 0x10000) {
      append_unicode_escape(out, ch.code);
    } else {
      append_unicode_escape(out, 0xd800 + ((ch.code - 0x10000) >> 10));
      append_unicode_escape(out, 0xdc00 + ((ch.code - 0x10000) & 0x3ff));
    }
  }
}

}  // namespace

void append_double(std::string& out, double value) {
  std::array<char, 64> buffer{};
  const auto result =
      std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, std::chars_format::scientific, 10);
  out.append(buffer.data(), result.ptr);
}

OutputWriter::OutputWriter(OutputFormat format, const Separators& separators, std::string& out)
    : format_(format), separators_(separators), out_(out) {}

void OutputWriter::begin_headers() {
  if (format_ == OutputFormat::wrapped_json) {
    out_.append("{\"columns\":");
  } else if (!is_csv()) {
    out_.push_back('[');
  }
  begin_row();
}

void OutputWriter::end_headers() {
  end_row();
  if (format_ != OutputFormat::wrapped_json) return;
  out_.append(",\"data\":[");
  need_row_separator_ = false;
}

void OutputWriter::begin_rows_without_headers() {
  if (format_ == OutputFormat::wrapped_json) out_.append("{\"data\":");
  if (!is_csv()) out_.push_back('[');
}

void OutputWriter::finish(std::uint64_t total_count) {
  if (is_csv()) return;
  out_.push_back(']');
  if (format_ == OutputFormat::wrapped_json) {
    out_.append(",\"total_count\":");
    append_int(out_, static_cast<std::int64_t>(total_count));
    out_.push_back('}');
  }
  out_.push_back('\n');
}

void OutputWriter::begin_row() {
  if (is_csv()) return;
  if (need_row_separator_) out_.append(",\n");
  out_.push_back('[');
}

void OutputWriter::end_row() {
  out_.push_back(is_csv() ? separators_.dataset : ']');
  need_row_separator_ = true;
}

void OutputWriter::field_separator() {
  out_.push_back(is_csv() ? separators_.field : ',');
}

void OutputWriter::write_int(std::int64_t value) {
  append_int(out_, value);
}

void OutputWriter::write_double(double value) {
  append_double(out_, value);
}

void OutputWriter::write_string(std::string_view value) {
  if (is_csv()) {
    out_.append(value);
    return;
  }
  write_quoted(value);
}

void OutputWriter::write_quoted(std::string_view value) {
  if (format_ == OutputFormat::python) out_.push_back('u');
  out_.push_back('"');
  append_escaped(out_, value);
  out_.push_back('"');
}

void OutputWriter::write_timeval(double seconds, int timezone_offset) {
  double whole = std::floor(seconds);
  auto micros = static_cast<long long>(std::llround((seconds - whole) * 1e6));
  if (micros >= 1000000) {
    whole += 1;
    micros -= 1000000;
  }
  std::array<char, 64> buffer{};
  const int n = std::snprintf(buffer.data(), buffer.size(), "%lld.%06lld",
                              static_cast<long long>(whole) + timezone_offset, micros);
  out_.append(buffer.data(), static_cast<std::size_t>(n));
}

void OutputWriter::write_cell(const Cell& cell, const Column* column, int timezone_offset) {
  const bool is_time = column != nullptr && column->type == ColumnType::time;
  switch (cell.kind()) {
    case Cell::Kind::none:
      return write_string({});
    case Cell::Kind::integer:
      return write_int(cell.as_int() + (is_time ? timezone_offset : 0));
    case Cell::Kind::floating:
      if (is_time) return write_timeval(cell.as_float(), timezone_offset);
      return write_double(cell.as_float());
    case Cell::Kind::string:
      return write_string(cell.as_string());
    case Cell::Kind::list:
    case Cell::Kind::dict:
      break;
  }
  const bool csv = is_csv();
  const bool is_dict = cell.kind() == Cell::Kind::dict;
  const bool as_sublist = column != nullptr && column->match == Match::attributes;
  const char item_separator = csv ? (as_sublist ? separators_.host_service : separators_.list) : ',';
  const char atom_separator = csv ? separators_.host_service : (is_dict ? ':' : ',');
  if (!csv) out_.push_back(is_dict ? '{' : '[');
  bool first = true;
  for (const Cell::Item& item : cell.items()) {
    if (!first) out_.push_back(item_separator);
    first = false;
    const bool bracket = item.tuple && !is_dict && !csv;
    if (bracket) out_.push_back('[');
    bool first_atom = true;
    for (const Cell::Atom& atom : cell.atoms_of(item)) {
      if (!first_atom) out_.push_back(atom_separator);
      first_atom = false;
      if (atom.is_int) {
        write_int(atom.value);
      } else {
        write_string(cell.text_of(atom));
      }
    }
    if (bracket) out_.push_back(']');
  }
  if (!csv) out_.push_back(is_dict ? '}' : ']');
}

}  // namespace vedette::livestatus
