#include "native/icmp_options.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <sys/socket.h>

namespace vedette::native {
namespace {

constexpr OptionTable k_table{"vhVw:c:n:p:t:H:s:i:b:I:l:m:64", {}};
constexpr std::string_view k_native_keys = "w c n p t H i I 4 6";
constexpr std::uint32_t k_max_ttl = 255;  // MAXTTL: the RTA thresholds are capped at this many seconds

// get_threshold(): from the end back to the third character, '%' ends the text there and the last ','
// before the end splits off the loss; the rest is an RTA for icmp_time_us. A zero RTA still counts.
// (A text of one character sends the plugin's scan before the string: refused by the caller.)
void threshold(std::string text, std::uint32_t& rta_us, std::uint32_t& pl) {
  for (std::size_t i = text.size() - 1; i >= 2; --i) {
    if (text[i] == '%') {
      text[i] = '\0';
    } else if (text[i] == ',' && i != text.size() - 1) {
      pl = static_cast<unsigned char>(std::strtoul(text.c_str() + i + 1, nullptr, 0));
      text[i] = '\0';
      break;
    }
  }
  rta_us = icmp_time_us(std::string(text.c_str()));
  if (rta_us > k_max_ttl * 1'000'000) rta_us = k_max_ttl * 1'000'000;
  if (pl > 100) pl = 100;
}

}  // namespace

std::uint64_t IcmpOptions::max_completion_us() const {
  return std::uint64_t{packets} * packet_interval_us + target_interval_us +
         std::uint64_t{packets} * critical_rta_us + critical_rta_us;
}

std::uint32_t icmp_time_us(const std::string& text) {
  const std::size_t len = text.size();
  if (len == 0) return 0;
  // The unit is the last character, or the one before a final 's' ("ms", "us") when it is no digit.
  char unit = text[len - 1];
  char before = '\0';
  if (len >= 2 && !std::isdigit(static_cast<unsigned char>(text[len - 2]))) before = text[len - 2];
  if (before != '\0' && unit == 's') unit = before;
  std::uint32_t factor = 1000;
  if (unit == 'u') factor = 1;
  if (unit == 'm') factor = 1000;
  if (unit == 's') factor = 1'000'000;
  char* end = nullptr;
  const auto whole = static_cast<std::uint32_t>(std::strtoul(text.c_str(), &end, 0));
  if (end == nullptr || *end != '.' || std::strlen(end) < 2 || factor == 1) return whole * factor;
  auto decimals = static_cast<std::uint32_t>(std::strtoul(end + 1, nullptr, 0));
  while (decimals >= factor) decimals /= 10;
  return whole * factor + decimals * (factor / 10);
}

std::optional<IcmpOptions> parse_icmp_options(std::span<const std::string> argv) {
  if (argv.size() < 2) return std::nullopt;
  std::vector<ArgWord> words;
  for (std::size_t i = 1; i < argv.size(); ++i) words.push_back({argv[i], true});
  IcmpOptions o;
  int targets = 0;
  bool four = false, six = false;
  std::string reason;
  const bool ok = scan_permuted(
      words, k_table,
      [&](int key, const ArgWord* value) -> std::string {
        if (!is_listed_key(key, k_native_keys)) return "not native";
        const std::string v = value != nullptr ? std::string(value->text) : std::string();
        switch (key) {
          case 'w':
          case 'c':
            if (v.size() < 2) return "threshold too short";
            if (key == 'w') threshold(v, o.warning_rta_us, o.warning_pl);
            if (key == 'c') threshold(v, o.critical_rta_us, o.critical_pl);
            break;
          case 'n':
          case 'p':  // an unsigned short in the plugin
            o.packets = static_cast<std::uint16_t>(std::strtoul(v.c_str(), nullptr, 0));
            break;
          case 't':
            o.timeout_s = static_cast<std::uint32_t>(std::strtoul(v.c_str(), nullptr, 0));
            if (o.timeout_s == 0) o.timeout_s = 10;
            break;
          case 'i':
            o.packet_interval_us = icmp_time_us(v);
            break;
          case 'I':
            o.target_interval_us = icmp_time_us(v);
            break;
          case 'H':
            o.target = v;
            ++targets;
            break;
          case '4':
          case '6':
            if (four || six) return "several -4/-6";  // "Multiple protocol versions not supported"
            (key == '4' ? four : six) = true;
            break;
          default:
            return "not native";
        }
        return {};
      },
      [&](const ArgWord& w) {
        o.target = std::string(w.text);
        ++targets;
      },
      reason);
  // Several targets, both -4 and -6 ("Multiple protocol versions"), more than 20 packets: the plugin's own
  // paths (several hosts in one line, or a crash message).
  if (!ok || targets != 1 || o.target.empty()) return std::nullopt;
  if (o.packets == 0 || o.packets > 20 || o.timeout_s > 3600) return std::nullopt;
  o.family = four ? AF_INET : six ? AF_INET6 : AF_UNSPEC;
  if (o.warning_pl > o.critical_pl) o.warning_pl = o.critical_pl;
  if (o.warning_rta_us > o.critical_rta_us) o.warning_rta_us = o.critical_rta_us;
  return o;
}

std::string check_icmp_refusal(std::span<const ArgWord> words) {
  std::string reason;
  int targets = 0;
  const bool ok = scan_permuted(
      words, k_table,
      [&](int key, const ArgWord*) -> std::string {
        if (!is_listed_key(key, k_native_keys))
          return fmt::format("unsupported option {}", option_name(key, k_table));
        if (key == 'H') ++targets;
        return {};
      },
      [&](const ArgWord&) { ++targets; }, reason);
  if (!ok) return reason;
  if (targets == 0) return "no target";
  if (targets > 1) return "several targets";
  return {};
}

}  // namespace vedette::native
