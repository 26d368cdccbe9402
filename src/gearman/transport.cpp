#include "gearman/transport.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <openssl/evp.h>

namespace vedette::gearman {
namespace {

constexpr char k_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// 0..63 for alphabet characters, 64 for '=', 0xff for anything else.
constexpr std::array<std::uint8_t, 256> make_decode_table() {
  std::array<std::uint8_t, 256> table{};
  for (auto& v : table) v = 0xff;
  for (std::uint8_t i = 0; i < 64; ++i) table[static_cast<unsigned char>(k_alphabet[i])] = i;
  table['='] = 64;
  return table;
}
constexpr std::array<std::uint8_t, 256> k_decode = make_decode_table();

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

std::string cut_at_nul(std::string text) {
  if (const auto nul = text.find('\0'); nul != std::string::npos) text.resize(nul);
  return text;
}

struct CipherCtxFree {
  void operator()(EVP_CIPHER_CTX* ctx) const { EVP_CIPHER_CTX_free(ctx); }
};
using CipherCtx = std::unique_ptr<EVP_CIPHER_CTX, CipherCtxFree>;

// One pass of AES-256-ECB without OpenSSL's padding; `in` is a whole number of blocks.
base::Expected<std::string> run_cipher(const std::array<unsigned char, k_key_bytes>& key, std::string_view in,
                                       bool encrypt) {
  CipherCtx ctx(EVP_CIPHER_CTX_new());
  if (!ctx) return base::Error{"cannot create an OpenSSL cipher context"};
  if (EVP_CipherInit_ex(ctx.get(), EVP_aes_256_ecb(), nullptr, key.data(), nullptr, encrypt ? 1 : 0) != 1)
    return base::Error{"OpenSSL refused the AES-256-ECB key"};
  EVP_CIPHER_CTX_set_padding(ctx.get(), 0);
  std::string out(in.size() + k_block_bytes, '\0');
  auto* out_bytes = reinterpret_cast<unsigned char*>(out.data());
  int produced = 0;
  int final_bytes = 0;
  if (EVP_CipherUpdate(ctx.get(), out_bytes, &produced, reinterpret_cast<const unsigned char*>(in.data()),
                       static_cast<int>(in.size())) != 1 ||
      EVP_CipherFinal_ex(ctx.get(), out_bytes + produced, &final_bytes) != 1)
    return base::Error{"AES-256-ECB failed"};
  out.resize(static_cast<std::size_t>(produced + final_bytes));
  return out;
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t v = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16 |
                            static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8 |
                            static_cast<unsigned char>(bytes[i + 2]);
    out += k_alphabet[v >> 18 & 63];
    out += k_alphabet[v >> 12 & 63];
    out += k_alphabet[v >> 6 & 63];
    out += k_alphabet[v & 63];
  }
  const std::size_t rest = bytes.size() - i;
  if (rest == 0) return out;
  std::uint32_t v = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
  if (rest == 2) v |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
  out += k_alphabet[v >> 18 & 63];
  out += k_alphabet[v >> 12 & 63];
  out += rest == 2 ? k_alphabet[v >> 6 & 63] : '=';
  out += '=';
  return out;
}

base::Expected<std::string> base64_decode(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  if (text.empty()) return base::Error{"empty payload"};

  std::string out;
  out.reserve(text.size() / 4 * 3);
  std::uint32_t group = 0;
  int in_group = 0;
  int padding = 0;
  std::size_t symbols = 0;
  for (std::size_t pos = 0; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (c == '\n' || c == '\r') continue;  // line breaks: Mod-Gearman strips them, Go ignores them
    const std::uint8_t v = k_decode[static_cast<unsigned char>(c)];
    if (v == 0xff) return base::Error{fmt::format("not base64: byte 0x{:02x} at offset {}", c & 0xff, pos)};
    ++symbols;
    if (v == 64) {
      // '=' only in the last two places of the last group.
      if (in_group < 2) return base::Error{fmt::format("not base64: misplaced '=' at offset {}", pos)};
      ++padding;
      group <<= 6;
    } else {
      if (padding > 0) return base::Error{fmt::format("not base64: data after '=' at offset {}", pos)};
      group = group << 6 | v;
    }
    if (++in_group < 4) continue;
    out += static_cast<char>(group >> 16 & 0xff);
    if (padding < 2) out += static_cast<char>(group >> 8 & 0xff);
    if (padding < 1) out += static_cast<char>(group & 0xff);
    group = 0;
    in_group = 0;
    if (padding > 0 && pos + 1 < text.size()) {
      // Only line breaks may follow the final group.
      for (std::size_t rest = pos + 1; rest < text.size(); ++rest)
        if (text[rest] != '\n' && text[rest] != '\r')
          return base::Error{fmt::format("not base64: data after '=' at offset {}", rest)};
    }
  }
  if (in_group != 0)
    return base::Error{fmt::format("not base64: {} symbols is not a multiple of 4", symbols)};
  return out;
}

Codec Codec::clear() {
  return Codec{};
}

Codec Codec::encrypted(std::string_view key, bool accept_clear) {
  Codec codec;
  codec.encrypt_ = true;
  codec.accept_clear_ = accept_clear;
  for (std::size_t i = 0; i < k_key_bytes && i < key.size() && key[i] != '\0'; ++i)
    codec.key_[i] = static_cast<unsigned char>(key[i]);
  return codec;
}

base::Expected<std::string> Codec::seal(std::string_view plaintext) const {
  if (!encrypt_) return base64_encode(plaintext);
  // mod_gm_encrypt encrypts strlen + 1 bytes (the NUL included) and mod_gm_aes_encrypt then appends
  // 16 - n % 16 zeros unless 16 % n == 0: so n = 16 gets none and any other multiple of 16 a whole block.
  // (n = 1, 2, 4 or 8 makes Mod-Gearman fail; we pad those to 16.)
  const std::size_t n = plaintext.size() + 1;
  const std::size_t pad = n == k_block_bytes ? 0 : k_block_bytes - n % k_block_bytes;
  std::string padded;
  padded.reserve(n + pad);
  padded.append(plaintext);
  padded.append(1 + pad, '\0');
  auto crypted = run_cipher(key_, padded, /*encrypt=*/true);
  if (!crypted) return crypted;
  return base64_encode(*crypted);
}

base::Expected<std::string> Codec::open(std::string_view wire) const {
  if (wire.size() > k_max_wire_bytes)
    return base::Error{
        fmt::format("payload of {} bytes exceeds the limit of {}", wire.size(), k_max_wire_bytes)};
  auto bytes = base64_decode(wire);
  if (!bytes) return bytes;
  // accept_clear_results: Mod-Gearman takes a payload as clear text when it starts with "type=".
  if (!encrypt_ || (accept_clear_ && bytes->starts_with("type="))) return cut_at_nul(std::move(*bytes));
  if (bytes->size() % k_block_bytes != 0)
    return base::Error{fmt::format("{} bytes is not a whole number of AES blocks (sent without encryption?)",
                                   bytes->size())};
  auto plain = run_cipher(key_, *bytes, /*encrypt=*/false);
  if (!plain) return plain;
  return cut_at_nul(std::move(*plain));
}

base::Expected<std::string> read_key_file(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rbe"), &std::fclose);
  if (!file) return base::Error{fmt::format("{}: cannot open key file: {}", path, std::strerror(errno))};
  // fgets(key, 33, fp) in read_keyfile: the first line, at most 32 bytes of it.
  std::string key;
  int c = 0;
  while (key.size() < k_key_bytes && (c = std::fgetc(file.get())) != EOF) {
    key += static_cast<char>(c);
    if (c == '\n') break;
  }
  while (!key.empty() && is_space(key.back())) key.pop_back();
  if (key.empty()) return base::Error{fmt::format("{}: key file holds no key", path)};
  return key;
}

}  // namespace vedette::gearman
