#include "tsdb/perfdata_values.hpp"

#include <charconv>
#include <cmath>

namespace vedette::tsdb {
namespace {

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// A leading number of `text`, allowing a '+' (from_chars does not) and rejecting nan and inf.
std::optional<double> leading_number(std::string_view text, std::size_t& used) {
  std::size_t start = 0;
  if (!text.empty() && text[0] == '+') start = 1;
  double v = 0;
  const char* first = text.data() + start;
  const auto [end, ec] = std::from_chars(first, text.data() + text.size(), v);
  if (ec != std::errc{} || !std::isfinite(v)) return std::nullopt;
  used = static_cast<std::size_t>(end - text.data());
  return v;
}

std::optional<double> plain_number(std::string_view text) {
  std::size_t used = 0;
  std::optional<double> v = leading_number(text, used);
  if (!v || used != text.size()) return std::nullopt;
  return v;
}

}  // namespace

bool PerfdataReader::next(PerfdataValue& out) {
  while (true) {
    while (!rest_.empty() && is_blank(rest_.front())) rest_.remove_prefix(1);
    if (rest_.empty()) return false;
    out.label.clear();
    // The label: quoted (may hold blanks and '=', '' is a quote), or up to '='.
    bool well_formed = true;
    if (rest_.front() == '\'') {
      std::size_t i = 1;
      while (true) {
        if (i >= rest_.size()) {
          well_formed = false;
          break;
        }
        if (rest_[i] == '\'') {
          if (i + 1 < rest_.size() && rest_[i + 1] == '\'') {
            out.label += '\'';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        out.label += rest_[i++];
      }
      rest_.remove_prefix(i);
      if (!well_formed) return false;
      if (rest_.empty() || rest_.front() != '=') well_formed = false;
    } else {
      std::size_t i = 0;
      while (i < rest_.size() && rest_[i] != '=' && !is_blank(rest_[i])) ++i;
      out.label.assign(rest_.substr(0, i));
      rest_.remove_prefix(i);
      if (rest_.empty() || rest_.front() != '=') well_formed = false;
    }
    std::size_t end = 0;
    while (end < rest_.size() && !is_blank(rest_[end])) ++end;
    const std::string_view field = well_formed ? rest_.substr(1, end - 1) : std::string_view{};
    rest_.remove_prefix(end);
    if (!well_formed || out.label.empty()) continue;

    const std::size_t semicolon = field.find(';');
    const std::string_view value_text = field.substr(0, semicolon);
    std::size_t used = 0;
    const std::optional<double> value = leading_number(value_text, used);
    if (!value) continue;
    out.value = *value;
    out.unit = value_text.substr(used);
    std::optional<double>* const extras[] = {&out.warn, &out.crit, &out.min, &out.max};
    std::string_view tail =
        semicolon == std::string_view::npos ? std::string_view{} : field.substr(semicolon + 1);
    for (std::optional<double>* extra : extras) {
      const std::size_t next = tail.find(';');
      *extra = plain_number(tail.substr(0, next));
      tail = next == std::string_view::npos ? std::string_view{} : tail.substr(next + 1);
    }
    return true;
  }
}

}  // namespace vedette::tsdb
