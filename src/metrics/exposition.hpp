// Writes the Prometheus text exposition format, version 0.0.4 (text/plain; version=0.0.4): HELP and TYPE
// lines per family, samples with escaped label values, histograms as cumulative `_bucket{le=…}`, `_sum`
// and `_count`. The scrape thread builds one per scrape; it owns its text.
//
//   Exposition out;
//   out.family("vedette_checks_total", MetricType::counter, "Checks executed.");
//   out.sample("vedette_checks_total", {{"kind", "active"}}, 12);
//   send(out.text());
#pragma once

#include "metrics/histogram.hpp"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace vedette::metrics {

enum class MetricType : std::uint8_t { counter, gauge, histogram };

using Label = std::pair<std::string_view, std::string_view>;

class Exposition {
 public:
  // `name` is the whole metric name (a counter's ends in _total); `help` is escaped here.
  void family(std::string_view name, MetricType type, std::string_view help);
  void sample(std::string_view name, std::initializer_list<Label> labels, double value);
  void sample(std::string_view name, std::initializer_list<Label> labels, std::uint64_t value);
  void sample(std::string_view name, std::initializer_list<Label> labels, std::int64_t value);
  // The `_bucket`, `_sum` and `_count` samples of one labelled histogram of family `name`.
  void histogram(std::string_view name, std::initializer_list<Label> labels, const HistogramValues& values);

  [[nodiscard]] const std::string& text() const { return text_; }

  // A sample value as the format spells it: integers exactly, `+Inf`, `-Inf`, `NaN`.
  [[nodiscard]] static std::string format_value(double value);

 private:
  void start_sample(std::string_view name, std::initializer_list<Label> labels, const Label* extra);

  std::string text_;
};

}  // namespace vedette::metrics
