#include "native/ping_options.hpp"

#include <fmt/format.h>

#include <array>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/socket.h>

namespace vedette::native {
namespace {

constexpr std::array<LongOption, 12> k_long_options{{
    {"help", false, 'h'},
    {"version", false, 'V'},
    {"verbose", false, 'v'},
    {"timeout", true, 't'},
    {"hostname", true, 'H'},
    {"critical", true, 'c'},
    {"warning", true, 'w'},
    {"packets", true, 'p'},
    {"nohtml", false, 'n'},
    {"link", false, 'L'},
    {"use-ipv4", false, '4'},
    {"use-ipv6", false, '6'},
}};
constexpr OptionTable k_table{"VvhnL46t:c:w:H:p:", k_long_options};

constexpr std::string_view k_native_keys = "H w c p t 4 6 n";

// The plugin rewrites these before getopt sees them.
constexpr std::array<LegacySpelling, 2> k_legacy{{{"-to", "-t"}, {"-nohtml", "-n"}}};

// get_threshold's pair form, the only one that sets both values (a bare RTA or bare percentage leaves the
// other unset, and the plugin then refuses the command line).
bool pair_threshold(const std::string& text, float& rta, int& pl) {
  if (is_intnonneg(text)) return false;
  if (std::strpbrk(text.c_str(), ",:") == nullptr || std::strstr(text.c_str(), "%") == nullptr) return false;
  return std::sscanf(text.c_str(), "%f%*[:,]%d%%", &rta, &pl) == 2;
}

}  // namespace

std::optional<PingOptions> parse_ping_options(std::span<const std::string> argv) {
  if (argv.size() < 2) return std::nullopt;
  const std::vector<ArgWord> words = respelled(argv, k_legacy);
  PingOptions o;
  int timeout = 10;  // DEFAULT_SOCKET_TIMEOUT
  bool has_host = false, has_warning = false, has_critical = false;
  const ScanResult scan = scan_options(words, 1, k_table, [&](int key, const ArgWord* value) -> std::string {
    if (!is_listed_key(key, k_native_keys)) return "not native";
    const std::string v = value != nullptr ? std::string(value->text) : std::string();
    if (family_option(key, o.family)) return {};
    switch (key) {
      case 'H':
        if (has_host || v.empty() || v.find(',') != std::string::npos) return "several addresses";
        o.address = v;
        has_host = true;
        break;
      case 'w':
        if (!pair_threshold(v, o.warning_rta, o.warning_pl)) return "bad threshold";
        has_warning = true;
        break;
      case 'c':
        if (!pair_threshold(v, o.critical_rta, o.critical_pl)) return "bad threshold";
        has_critical = true;
        break;
      case 'p':
        if (!is_intnonneg(v)) return "bad packets";
        o.packets = std::atoi(v.c_str());
        break;
      case 't':
        timeout = std::atoi(v.c_str());
        break;
      case 'n':
        break;
      default:
        return "not native";
    }
    return {};
  });
  // Operands: getopt permutes them behind the options and the plugin reads them positionally.
  if (!scan.reason.empty() || scan.operand != words.size()) return std::nullopt;
  if (!has_host || !has_warning || !has_critical) return std::nullopt;
  if (o.warning_rta < 0 || o.critical_rta < 0 || o.warning_pl < 0 || o.critical_pl < 0) return std::nullopt;
  if (o.warning_rta > o.critical_rta || o.warning_pl > o.critical_pl) return std::nullopt;
  // ping -c 0 never stops counting; a packet count that 100 is no multiple of gives loss percentages
  // like 16.6667% that the plugin reads by a partial sscanf match: both stay processes.
  if (o.packets < 1 || o.packets > 100 || 100 % o.packets != 0) return std::nullopt;
  const float max_seconds = static_cast<float>(o.critical_rta / 1000.0 * o.packets + o.packets);
  o.deadline_s = max_seconds > static_cast<float>(timeout) ? static_cast<int>(max_seconds) : timeout;
  if (o.deadline_s < 1 || o.deadline_s > 3600) return std::nullopt;
  return o;
}

std::string check_ping_refusal(std::span<const ArgWord> in) {
  if (in.empty()) return "no arguments";
  const std::vector<ArgWord> words = respelled(in, k_legacy);
  bool has_host = false;
  const ScanResult scan = scan_options(words, 0, k_table, [&](int key, const ArgWord*) -> std::string {
    if (!is_listed_key(key, k_native_keys))
      return fmt::format("unsupported option {}", option_name(key, k_table));
    if (key == 'H') has_host = true;
    return {};
  });
  if (!scan.reason.empty()) return scan.reason;
  if (scan.operand != words.size()) return "positional arguments";
  if (!has_host) return "no -H";
  return {};
}

std::string ping_command_line(const PingOptions& options, bool ipv6) {
  return fmt::format("/bin/ping -{} -n -U -w {} -c {} {}", ipv6 ? 6 : 4, options.deadline_s, options.packets,
                     options.address);
}

}  // namespace vedette::native
