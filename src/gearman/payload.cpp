#include "gearman/payload.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <limits>
#include <openssl/evp.h>

namespace vedette::gearman {
namespace {

std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::optional<int> parse_int(std::string_view text) {
  text = trim_blanks(text);
  int value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

// A newline inside a value would end the line, so it travels as the two characters "\n".
void append_escaped(std::string& out, std::string_view value) {
  for (const char c : value) {
    if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
}

void append_line(std::string& out, std::string_view key, std::string_view value) {
  out += key;
  out += '=';
  append_escaped(out, value);
  out += '\n';
}

// The result thread's replace_str(value, "\\n", "\n"): every backslash-n becomes a newline, nothing else
// is unescaped (the C worker's doubled backslashes reach Naemon doubled too).
std::string unescape_newlines(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '\\' && i + 1 < value.size() && value[i + 1] == 'n') {
      out += '\n';
      ++i;
    } else {
      out += value[i];
    }
  }
  return out;
}

base::Error bad_number(std::string_view key, std::string_view value) {
  return base::Error{fmt::format("bad {} '{}'", key, value.substr(0, 40))};
}

}  // namespace

std::string_view job_type_name(JobType type) {
  switch (type) {
    case JobType::host:
      return "host";
    case JobType::service:
      return "service";
    case JobType::eventhandler:
      return "eventhandler";
    case JobType::notification:
      return "notification";
  }
  return "service";
}

std::string format_time(std::int64_t us) {
  const std::uint64_t magnitude =
      us < 0 ? 0 - static_cast<std::uint64_t>(us) : static_cast<std::uint64_t>(us);
  return fmt::format("{}{}.{:06}", us < 0 ? "-" : "", magnitude / 1'000'000, magnitude % 1'000'000);
}

std::optional<std::int64_t> parse_time(std::string_view text) {
  text = trim_blanks(text);
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  std::int64_t seconds = 0;
  std::int64_t fraction = 0;
  int fraction_digits = 0;
  bool any_digit = false;
  bool in_fraction = false;
  for (const char c : text) {
    if (c == '.' && !in_fraction) {
      in_fraction = true;
      continue;
    }
    if (c < '0' || c > '9') return std::nullopt;
    any_digit = true;
    const int digit = c - '0';
    if (in_fraction) {
      if (fraction_digits < 6) {
        fraction = fraction * 10 + digit;
        ++fraction_digits;
      }
      continue;
    }
    if (seconds > (std::numeric_limits<std::int64_t>::max() / 1'000'000 - 9) / 10) return std::nullopt;
    seconds = seconds * 10 + digit;
  }
  if (!any_digit) return std::nullopt;
  for (; fraction_digits < 6; ++fraction_digits) fraction *= 10;
  const std::int64_t us = seconds * 1'000'000 + fraction;
  return negative ? -us : us;
}

std::vector<Field> split_fields(std::string_view text) {
  std::vector<Field> fields;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    const std::size_t eq = line.find('=');
    if (eq == std::string_view::npos) break;
    fields.push_back({line.substr(0, eq), line.substr(eq + 1)});
    if (eq + 1 == line.size() || end == text.size()) break;
    pos = end + 1;
  }
  return fields;
}

std::string format_job(const Job& job) {
  std::string out;
  out.reserve(256 + job.command_line.size() + job.plugin_output.size() + job.long_plugin_output.size());
  append_line(out, "type", job_type_name(job.type));
  switch (job.type) {
    case JobType::host:
    case JobType::service:
      append_line(out, "result_queue", job.result_queue);
      append_line(out, "target_queue", job.target_queue);
      append_line(out, "host_name", job.host_name);
      if (job.type == JobType::service) append_line(out, "service_description", job.service_description);
      append_line(out, "core_time", format_time(job.core_time_us));
      append_line(out, "timeout", fmt::format("{}", job.timeout_s));
      append_line(out, "command_line", job.command_line);
      break;
    case JobType::eventhandler:
      append_line(out, "start_time", format_time(job.start_time_us));
      append_line(out, "core_time", format_time(job.core_time_us));
      append_line(out, "command_line", job.command_line);
      break;
    case JobType::notification:
      append_line(out, "start_time", format_time(job.start_time_us));
      append_line(out, "core_time", format_time(job.core_time_us));
      append_line(out, "contact", job.contact);
      append_line(out, "command_line", job.command_line);
      append_line(out, "plugin_output", job.plugin_output);
      append_line(out, "long_plugin_output", job.long_plugin_output);
      break;
  }
  out += "\n\n";
  return out;
}

base::Expected<Job> parse_job(std::string_view text) {
  if (!text.starts_with("type="))
    return base::Error{"job does not start with 'type=' (wrong key, or not a Mod-Gearman job)"};
  Job job;
  bool have_type = false;
  for (const Field& f : split_fields(text)) {
    // get_job stops before storing an empty value.
    if (f.value.empty()) break;
    const std::string_view k = f.key;
    if (k == "type") {
      have_type = true;
      if (f.value == "host")
        job.type = JobType::host;
      else if (f.value == "service")
        job.type = JobType::service;
      else if (f.value == "eventhandler")
        job.type = JobType::eventhandler;
      else if (f.value == "notification")
        job.type = JobType::notification;
      else
        return base::Error{fmt::format("unknown job type '{}'", f.value.substr(0, 40))};
    } else if (k == "result_queue") {
      job.result_queue = f.value;
    } else if (k == "target_queue") {
      job.target_queue = f.value;
    } else if (k == "host_name") {
      job.host_name = f.value;
    } else if (k == "service_description") {
      job.service_description = f.value;
    } else if (k == "command_line") {
      job.command_line = f.value;
    } else if (k == "contact") {
      job.contact = f.value;
    } else if (k == "plugin_output") {
      job.plugin_output = f.value;
    } else if (k == "long_plugin_output") {
      job.long_plugin_output = f.value;
    } else if (k == "timeout") {
      const auto v = parse_int(f.value);
      if (!v) return bad_number(k, f.value);
      job.timeout_s = *v;
    } else if (k == "core_time" || k == "next_check" || k == "start_time") {
      const auto v = parse_time(f.value);
      if (!v) return bad_number(k, f.value);
      if (k == "core_time") {
        job.core_time_us = *v;
      } else if (k == "next_check") {
        job.next_check_us = *v;
      } else {
        // get_job: start_time (older NEB modules) sets both the next check and the core time.
        job.start_time_us = *v;
        job.next_check_us = *v;
        job.core_time_us = *v;
      }
    }
  }
  if (!have_type) return base::Error{"job has an empty type"};
  if (job.command_line.empty())
    return base::Error{fmt::format("{} job without command_line", job_type_name(job.type))};
  if ((job.type == JobType::host || job.type == JobType::service) && job.host_name.empty())
    return base::Error{fmt::format("{} job without host_name", job_type_name(job.type))};
  if (job.type == JobType::service && job.service_description.empty())
    return base::Error{"service job without service_description"};
  return job;
}

std::string format_result(const Result& r) {
  std::string out;
  out.reserve(256 + r.output.size());
  append_line(out, "type", r.passive ? "passive" : "active");
  append_line(out, "host_name", r.host_name);
  if (!r.service_description.empty()) append_line(out, "service_description", r.service_description);
  if (r.core_start_time_us != 0) append_line(out, "core_start_time", format_time(r.core_start_time_us));
  if (r.start_time_us != 0) append_line(out, "start_time", format_time(r.start_time_us));
  if (r.finish_time_us != 0) append_line(out, "finish_time", format_time(r.finish_time_us));
  if (r.latency_us != 0) append_line(out, "latency", format_time(r.latency_us));
  if (r.check_options != 0) append_line(out, "check_options", fmt::format("{}", r.check_options));
  if (!r.scheduled_check) append_line(out, "scheduled_check", "0");
  append_line(out, "return_code", fmt::format("{}", r.return_code));
  append_line(out, "exited_ok", r.exited_ok ? "1" : "0");
  if (r.early_timeout) append_line(out, "early_timeout", "1");
  if (!r.source.empty()) append_line(out, "source", r.source);
  append_line(out, "output", r.output);
  out += '\n';
  return out;
}

base::Expected<Result> parse_result(std::string_view text) {
  Result r;
  bool have_host = false;
  bool have_output = false;
  // A field the core can do without keeps its default when it does not parse: the C worker 5.2.4 sends
  // uninitialised memory as core_start_time, and the NEB module's atoi/atof never refuse anything.
  const auto defaulted = [&r](std::string_view key, std::string_view value) {
    if (r.malformed.empty()) r.malformed = fmt::format("{} '{}'", key, value.substr(0, 40));
  };
  for (const Field& f : split_fields(text)) {
    const std::string_view k = f.key;
    if (k == "output") {
      // Read before the empty-value test, so "output=" is an empty output.
      r.output = unescape_newlines(f.value);
      have_output = true;
      continue;
    }
    if (f.value.empty()) break;
    if (k == "host_name") {
      r.host_name = f.value;
      have_host = true;
    } else if (k == "service_description") {
      r.service_description = f.value;
    } else if (k == "source") {
      r.source = f.value;
    } else if (k == "type") {
      r.passive = f.value == "passive";
    } else if (k == "return_code") {
      const auto v = parse_int(f.value);
      if (!v) return bad_number(k, f.value);
      r.return_code = *v;
    } else if (k == "check_options" || k == "scheduled_check" || k == "exited_ok" || k == "early_timeout") {
      const auto v = parse_int(f.value);
      if (!v) {
        defaulted(k, f.value);
        continue;
      }
      if (k == "check_options")
        r.check_options = *v;
      else if (k == "scheduled_check")
        r.scheduled_check = *v != 0;
      else if (k == "exited_ok")
        r.exited_ok = *v != 0;
      else
        r.early_timeout = *v != 0;
    } else if (k == "core_start_time" || k == "start_time" || k == "finish_time" || k == "latency") {
      const auto v = parse_time(f.value);
      if (!v) {
        defaulted(k, f.value);
        continue;
      }
      if (k == "core_start_time")
        r.core_start_time_us = *v;
      else if (k == "start_time")
        r.start_time_us = *v;
      else if (k == "finish_time")
        r.finish_time_us = *v;
      else
        r.latency_us = *v;
    }
  }
  if (!have_host) return base::Error{"result without host_name (wrong key, or not a Mod-Gearman result)"};
  if (!have_output)
    return base::Error{fmt::format("result for '{}' without output", r.host_name.substr(0, 80))};
  return r;
}

std::string unique_key(std::string_view host_name, std::string_view service_description) {
  std::string text(host_name);
  if (!service_description.empty()) {
    text += '-';
    text += service_description;
  }
  // make_uniq formats into a 1024-byte buffer first.
  if (text.size() > 1023) text.resize(1023);
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int digest_bytes = 0;
  if (EVP_Digest(text.data(), text.size(), digest.data(), &digest_bytes, EVP_md5(), nullptr) != 1) return {};
  static constexpr char k_hex[] = "0123456789ABCDEF";
  std::string hex;
  hex.reserve(digest_bytes * 2);
  for (unsigned int i = 0; i < digest_bytes; ++i) {
    hex += k_hex[digest[i] >> 4];
    hex += k_hex[digest[i] & 0xf];
  }
  return hex;
}

}  // namespace vedette::gearman
