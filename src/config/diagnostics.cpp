#include "config/diagnostics.hpp"

#include <fmt/format.h>

namespace vedette::config {

void Diagnostics::error(std::string message, SourcePos at, PosKind kind) {
  list_.push_back({Severity::error, at, kind, std::move(message)});
  ++errors_;
}

void Diagnostics::warning(std::string message, SourcePos at, PosKind kind) {
  list_.push_back({Severity::warning, at, kind, std::move(message)});
  ++warnings_;
}

std::string Diagnostics::format(const Diagnostic& d) {
  const char* label = d.severity == Severity::error ? "Error" : "Warning";
  if (d.at.file == nullptr) return fmt::format("{}: {}", label, d.message);
  if (d.kind == PosKind::line)
    return fmt::format("{}: {} (config file '{}', line {})", label, d.message, *d.at.file, d.at.line);
  return fmt::format("{}: {} (config file '{}', starting on line {})", label, d.message, *d.at.file,
                     d.at.line);
}

}  // namespace vedette::config
