#include "native/http_options.hpp"

#include <fmt/format.h>

#include <array>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <regex.h>
#include <sys/socket.h>

namespace vedette::native {
namespace {

enum : int { k_invert_regex = CHAR_MAX + 1, k_sni, k_max_redirs, k_continue_after_cert };

// check_http.c's longopts and optstring, unsupported ones included so that they are recognised and refused.
constexpr std::array<LongOption, 42> k_long_options{{
    {"help", false, 'h'},
    {"version", false, 'V'},
    {"verbose", false, 'v'},
    {"timeout", true, 't'},
    {"critical", true, 'c'},
    {"warning", true, 'w'},
    {"hostname", true, 'H'},
    {"link", false, 'L'},
    {"nohtml", false, 'n'},
    {"ssl", true, 'S', true},
    {"sni", false, k_sni},
    {"post", true, 'P'},
    {"method", true, 'j'},
    {"IP-address", true, 'I'},
    {"url", true, 'u'},
    {"port", true, 'p'},
    {"authorization", true, 'a'},
    {"proxy-authorization", true, 'b'},
    {"header-string", true, 'd'},
    {"string", true, 's'},
    {"expect", true, 'e'},
    {"regex", true, 'r'},
    {"ereg", true, 'r'},
    {"eregi", true, 'R'},
    {"linespan", false, 'l'},
    {"onredirect", true, 'f'},
    {"certificate", true, 'C'},
    {"client-cert", true, 'J'},
    {"private-key", true, 'K'},
    {"continue-after-certificate", false, k_continue_after_cert},
    {"useragent", true, 'A'},
    {"header", true, 'k'},
    {"no-body", false, 'N'},
    {"max-age", true, 'M'},
    {"content-type", true, 'T'},
    {"pagesize", true, 'm'},
    {"invert-regex", false, k_invert_regex},
    {"use-ipv4", false, '4'},
    {"use-ipv6", false, '6'},
    {"extended-perfdata", false, 'E'},
    {"show-body", false, 'B'},
    {"max-redirs", true, k_max_redirs},
}};
constexpr OptionTable k_table{"Vvh46t:c:w:A:k:H:P:j:T:I:a:b:d:e:p:s:R:r:u:f:C:J:K:nlLS::m:M:NEB",
                              k_long_options};

constexpr std::string_view k_native_letters = "H I p u e s w c t S j 4 6 a b d k A P T f m N E B r R l n";
bool is_native_key(int key) {
  return is_listed_key(key, k_native_letters) || key == k_sni || key == k_invert_regex || key == k_max_redirs;
}

// The plugin rewrites these before getopt sees them.
constexpr std::array<LegacySpelling, 5> k_legacy{
    {{"-to", "-t"}, {"-hn", "-H"}, {"-wt", "-w"}, {"-ct", "-c"}, {"-nohtml", "-n"}}};

constexpr std::size_t k_max_input = 8192 - 1;  // strncpy into MAX_INPUT_BUFFER

std::string truncated(std::string_view text) {
  return std::string(text.substr(0, k_max_input));
}

// -f: the states of a redirect the plugin does not follow; following is left to the process.
int redirect_state(const std::string& text) {
  if (text == "ok") return 0;
  if (text == "warning") return 1;
  if (text == "critical") return 2;
  if (text == "unknown") return 3;
  return -1;
}

// -m: "min" or "min:max" as strtok reads them (empty pieces skipped; fewer than two is the plugin's
// "Bad format" exit).
bool page_sizes(const std::string& text, HttpOptions& o) {
  if (text.find(':') == std::string::npos) {
    o.min_page_len = std::atoi(text.c_str());
    return true;
  }
  std::vector<std::string> pieces;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t colon = std::min(text.find(':', at), text.size());
    if (colon > at) pieces.push_back(text.substr(at, colon - at));
    at = colon + 1;
  }
  if (pieces.size() < 2) return false;
  o.min_page_len = std::atoi(pieces[0].c_str());
  o.max_page_len = std::atoi(pieces[1].c_str());
  return true;
}

}  // namespace

std::optional<HttpOptions> parse_http_options(std::span<const std::string> argv) {
  if (argv.size() < 2) return std::nullopt;
  std::vector<std::string> words_text(argv.begin() + 1, argv.end());
  const std::vector<ArgWord> words = respelled(words_text, k_legacy);
  HttpOptions o;
  o.user_agent = "User-Agent: check_http/v2.3.3 (monitoring-plugins 2.3.3)";
  bool specify_port = false, have_address = false, have_method = false;
  std::optional<std::string> warning, critical;
  int cflags = REG_NOSUB | REG_EXTENDED | REG_NEWLINE;
  bool invert = false;
  std::vector<std::string> operands;
  std::string reason;
  const bool ok = scan_permuted(
      words, k_table,
      [&](int key, const ArgWord* value) -> std::string {
        if (!is_native_key(key)) return "not native";
        const std::string v = value != nullptr ? std::string(value->text) : std::string();
        if (family_option(key, o.family)) return {};
        switch (key) {
          case 't':
            if (!is_intnonneg(v)) return "bad timeout";
            o.timeout_s = std::atoi(v.c_str());
            break;
          case 'c':
            critical = v;
            break;
          case 'w':
            warning = v;
            break;
          case 'A':
            o.user_agent = "User-Agent: " + v;
            break;
          case 'k':
            o.headers.push_back(v);
            break;
          case 'n':
            break;
          case 'S':
            if (value != nullptr) return "a TLS version";
            o.use_ssl = true;
            if (!specify_port) o.server_port = 443;
            break;
          case k_sni:
            o.use_sni = true;
            break;
          case k_max_redirs:
            if (!is_intnonneg(v)) return "bad max-redirs";
            break;
          case 'f':
            if ((o.onredirect = redirect_state(v)) < 0) return "following redirects";
            break;
          case 'H': {
            if (!v.empty() && v[0] == '[') return "a bracketed IPv6 host";
            o.host_name = v;
            const std::size_t colon = v.find(':');
            if (colon != std::string::npos && v.find(':', colon + 1) == std::string::npos) {
              o.virtual_port = std::atoi(v.c_str() + colon + 1);
              o.host_name = v.substr(0, colon);
              if (!specify_port) o.server_port = o.virtual_port;
            }
            break;
          }
          case 'I':
            o.server_address = v;
            have_address = true;
            break;
          case 'u':
            o.url = v;
            break;
          case 'p':
            if (!is_intnonneg(v)) return "bad port";
            o.server_port = std::atoi(v.c_str());
            specify_port = true;
            break;
          case 'a':
            o.user_auth = truncated(v);
            break;
          case 'b':
            o.proxy_auth = truncated(v);
            break;
          case 'P':
            if (!o.post_data) o.post_data = v;
            if (!have_method) o.method = "POST";
            have_method = true;
            break;
          case 'j':
            o.method = v;
            have_method = true;
            break;
          case 'd':
            o.header_expect = truncated(v);
            break;
          case 's':
            o.string_expect = truncated(v);
            break;
          case 'e':
            o.server_expect = truncated(v);
            o.server_expect_given = true;
            break;
          case 'T':
            o.content_type = v;
            break;
          case 'l':
            cflags &= ~REG_NEWLINE;
            break;
          case 'R':
          case 'r': {
            if (key == 'R') cflags |= REG_ICASE;
            regex_t compiled;
            const std::string pattern = v.substr(0, 1024 - 1);  // MAX_RE_SIZE
            if (::regcomp(&compiled, pattern.c_str(), cflags) != 0) return "a regex that does not compile";
            ::regfree(&compiled);
            o.regex = HttpRegex{pattern, cflags, false};
            break;
          }
          case k_invert_regex:
            invert = true;
            break;
          case 'm':
            if (!page_sizes(v, o)) return "bad page sizes";
            break;
          case 'N':
            o.no_body = true;
            break;
          case 'E':
            o.extended_perfdata = true;
            break;
          case 'B':
            o.show_body = true;
            break;
          default:
            return "not native";
        }
        return {};
      },
      [&](const ArgWord& w) { operands.emplace_back(w.text); }, reason);
  if (!ok) return std::nullopt;
  if (o.regex) o.regex->invert = invert;
  std::size_t next = 0;
  if (!have_address && next < operands.size()) {
    o.server_address = operands[next++];
    have_address = true;
  }
  if (!o.host_name && next < operands.size()) o.host_name = operands[next++];
  if (!have_address) {
    if (!o.host_name) return std::nullopt;  // "You must specify a server address or host name"
    o.server_address = *o.host_name;
  }
  // A unix socket, a bracketed address, no address: the plugin's own paths.
  if (o.server_address.empty() || o.server_address[0] == '/' || o.server_address[0] == '[')
    return std::nullopt;
  if (warning && !(o.thresholds.warning = parse_plugin_range(*warning))) return std::nullopt;
  if (critical && !(o.thresholds.critical = parse_plugin_range(*critical))) return std::nullopt;
  if (critical && o.thresholds.critical->end > static_cast<double>(o.timeout_s))
    o.timeout_s = static_cast<int>(o.thresholds.critical->end) + 1;
  // -t 0 turns the plugin's alarm off; the CONNECT tunnel and a ':' method are the proxy mode.
  if (o.timeout_s <= 0) return std::nullopt;
  if (o.method == "CONNECT" || o.method.find(':') != std::string::npos) return std::nullopt;
  if (o.server_port < 0 || o.server_port > 65535) return std::nullopt;
  if (o.virtual_port == 0) o.virtual_port = o.server_port;
  return o;
}

std::string check_http_refusal(std::span<const ArgWord> in) {
  if (in.empty()) return "no arguments";
  const std::vector<ArgWord> words = respelled(in, k_legacy);
  std::string reason;
  bool has_host = false;
  const bool ok = scan_permuted(
      words, k_table,
      [&](int key, const ArgWord* value) -> std::string {
        if (!is_native_key(key)) return fmt::format("unsupported option {}", option_name(key, k_table));
        if (key == 'S' && value != nullptr) return "a TLS version (-S with a value)";
        if (key == 'f' && value != nullptr && value->known && redirect_state(std::string(value->text)) < 0)
          return "-f follows redirects";
        if (key == 'H' || key == 'I') has_host = true;
        return {};
      },
      [&](const ArgWord&) { has_host = true; }, reason);
  if (!ok) return reason;
  if (!has_host) return "no -H or -I";
  return {};
}

}  // namespace vedette::native
