#include "native/tcp_options.hpp"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <netdb.h>
#include <sys/socket.h>

namespace vedette::native {
namespace {

constexpr int k_sni_option = CHAR_MAX + 1;

// check_tcp.c's longopts and optstring, unsupported ones included so that they are recognised and refused.
constexpr std::array<LongOption, 26> k_long_options{{
    {"hostname", true, 'H'},       {"critical", true, 'c'},      {"warning", true, 'w'},
    {"critical-codes", true, 'C'}, {"warning-codes", true, 'W'}, {"timeout", true, 't'},
    {"protocol", true, 'P'},       {"port", true, 'p'},          {"escape", false, 'E'},
    {"all", false, 'A'},           {"send", true, 's'},          {"expect", true, 'e'},
    {"maxbytes", true, 'm'},       {"quit", true, 'q'},          {"jail", false, 'j'},
    {"delay", true, 'd'},          {"refuse", true, 'r'},        {"mismatch", true, 'M'},
    {"use-ipv4", false, '4'},      {"use-ipv6", false, '6'},     {"verbose", false, 'v'},
    {"version", false, 'V'},       {"help", false, 'h'},         {"ssl", false, 'S'},
    {"sni", true, k_sni_option},   {"certificate", true, 'D'},
}};
constexpr OptionTable k_table{"hVv46EAH:s:e:q:m:c:w:t:p:C:W:d:Sr:jD:M:", k_long_options};

constexpr std::string_view k_native_keys = "H p w c t 4 6 s e q E r M A j m";

// plugins/utils.c: is_option (one or two leading dashes).
bool is_option(const std::string_view text) {
  std::size_t dashes = 0;
  while (dashes < text.size() && text[dashes] == '-') ++dashes;
  return dashes == 1 || dashes == 2;
}

// -r / -M: "ok", "warn", "crit" by prefix, as the plugin compares them.
int state_word(const std::string& text) {
  if (text.compare(0, 2, "ok") == 0) return 0;
  if (text.compare(0, 4, "warn") == 0) return 1;
  if (text.compare(0, 4, "crit") == 0) return 2;
  return -1;
}

// lib/utils_base.c's np_escaped_string. A trailing backslash makes the plugin read past the string: refused.
std::optional<std::string> escaped(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out += text[i];
      continue;
    }
    if (++i == text.size()) return std::nullopt;
    switch (text[i]) {
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      default:
        out += text[i];
        break;
    }
  }
  return out;
}

// The plugin rewrites these before getopt sees them.
constexpr std::array<LegacySpelling, 3> k_legacy{{{"-to", "-t"}, {"-wt", "-w"}, {"-ct", "-c"}}};

}  // namespace

std::optional<TcpOptions> parse_tcp_options(std::span<const std::string> argv) {
  if (argv.size() < 2) return std::nullopt;  // usage4: "No arguments found"
  const std::vector<ArgWord> words = respelled(argv, k_legacy);
  TcpOptions o;
  std::size_t first = 1;
  if (!is_option(words[1].text)) {  // check_tcp HOST -p N: the address without -H (and unnamed in the output)
    o.address = std::string(words[1].text);
    first = 2;
  }
  bool escape = false;
  const ScanResult scan =
      scan_options(words, first, k_table, [&](int key, const ArgWord* value) -> std::string {
        if (!is_listed_key(key, k_native_keys)) return "not native";
        const std::string v = value != nullptr ? std::string(value->text) : std::string();
        if (family_option(key, o.family)) return {};
        switch (key) {
          case 'H':
            o.host_specified = true;
            o.address = v;
            break;
          case 'p':
            if (!is_intpos(v)) return "bad port";
            o.port = std::atoi(v.c_str());
            break;
          case 't':
            if (!is_intpos(v)) return "bad timeout";
            o.timeout_s = std::atoi(v.c_str());
            break;
          case 'w':
            o.warning = std::strtod(v.c_str(), nullptr);
            o.has_warning = true;
            break;
          case 'c':
            o.critical = std::strtod(v.c_str(), nullptr);
            o.has_critical = true;
            break;
          case 'E':
            escape = true;
            break;
          case 'A':
            o.match_all = true;
            break;
          case 'j':
            o.hide_output = true;
            break;
          case 'e':
            o.expect.push_back(v);
            break;
          case 'm':
            if (!is_intpos(v)) return "bad maxbytes";
            o.maxbytes = std::strtoul(v.c_str(), nullptr, 0);
            break;
          case 's':
          case 'q': {
            // -E must come first to apply; without it the plugin appends CRLF to the quit string only.
            std::optional<std::string> text =
                escape ? escaped(v) : std::optional(key == 'q' ? v + "\r\n" : v);
            if (!text) return "bad escape";
            (key == 's' ? o.send : o.quit) = std::move(*text);
            break;
          }
          case 'r':
            if ((o.refuse_state = state_word(v)) < 0) return "bad refuse";
            break;
          case 'M':
            if ((o.mismatch_state = state_word(v)) < 0) return "bad mismatch";
            break;
          default:
            return "not native";
        }
        return {};
      });
  if (!scan.reason.empty()) return std::nullopt;
  if (!o.host_specified && scan.operand < words.size()) o.address = std::string(words[scan.operand].text);
  // A unix socket, or a bracketed IPv6 address (which the plugin prints half-stripped): the process.
  if (o.address.empty() || o.address[0] == '/' || o.address[0] == '[') return std::nullopt;
  if (o.port == 0) return std::nullopt;  // no -p: the plugin connects to port 0
  return o;
}

std::string check_tcp_refusal(std::span<const ArgWord> in) {
  if (in.empty()) return "no arguments";
  const std::vector<ArgWord> words = respelled(in, k_legacy);
  if (!words[0].known) return "an option word comes from a macro";
  bool has_port = false;
  const std::size_t first = is_option(words[0].text) ? 0 : 1;
  const ScanResult scan = scan_options(words, first, k_table, [&](int key, const ArgWord*) -> std::string {
    if (!is_listed_key(key, k_native_keys))
      return fmt::format("unsupported option {}", option_name(key, k_table));
    if (key == 'p') has_port = true;
    return {};
  });
  if (!scan.reason.empty()) return scan.reason;
  if (!has_port) return "no -p";
  return {};
}

}  // namespace vedette::native
