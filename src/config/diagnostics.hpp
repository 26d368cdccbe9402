// Load-time problems, collected rather than thrown, so one run reports every error.
// Single-threaded: owned by one loader run.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace vedette::config {

// Where something was written. `file` points into a SourceFiles table that outlives every diagnostic.
struct SourcePos {
  const std::string* file = nullptr;
  std::uint32_t line = 0;
};

// Stable storage for the names of the files read, so SourcePos stays two words.
class SourceFiles {
 public:
  const std::string* add(std::string path) { return &paths_.emplace_back(std::move(path)); }

 private:
  std::deque<std::string> paths_;
};

enum class Severity { warning, error };

// How the position is named in the message: an object starts on a line (Naemon's "starting on line N"),
// a main-config directive is on one.
enum class PosKind { object_start, line };

struct Diagnostic {
  Severity severity;
  SourcePos at;
  PosKind kind;
  std::string message;
};

class Diagnostics {
 public:
  void error(std::string message, SourcePos at = {}, PosKind kind = PosKind::object_start);
  void warning(std::string message, SourcePos at = {}, PosKind kind = PosKind::object_start);

  [[nodiscard]] bool has_errors() const { return errors_ > 0; }
  [[nodiscard]] std::size_t error_count() const { return errors_; }
  [[nodiscard]] std::size_t warning_count() const { return warnings_; }
  [[nodiscard]] const std::vector<Diagnostic>& all() const { return list_; }

  // "Error: <message> (config file '<path>', starting on line N)", as naemon -v prints them.
  [[nodiscard]] static std::string format(const Diagnostic& d);

 private:
  std::vector<Diagnostic> list_;
  std::size_t errors_ = 0;
  std::size_t warnings_ = 0;
};

}  // namespace vedette::config
