// How Mod-Gearman wraps a payload on the wire ("transport mode"): AES-256-ECB under its key with zero
// padding, then base64 on one line; or base64 alone with encryption off. Byte for byte what the NEB module
// and both workers send, so either side can be Mod-Gearman (docs/distributed.md).
// Codec is a plain value with const methods: any thread, each call uses an OpenSSL context of its own.
//
//   Codec codec = Codec::encrypted("should_be_changed");
//   std::string wire = *codec.seal("type=host\n...");   // what goes to gearmand
//   base::Expected<std::string> text = codec.open(wire);  // what a worker reads back
#pragma once

#include "base/expected.hpp"

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace vedette::gearman {

inline constexpr std::size_t k_key_bytes = 32;    // AES-256
inline constexpr std::size_t k_block_bytes = 16;  // AES block
// Largest payload open() looks at. Mod-Gearman caps plugin output at 10 MiB (GM_MAX_OUTPUT); escaped and
// base64-encoded that is under 28 MiB.
inline constexpr std::size_t k_max_wire_bytes = 32 * 1024 * 1024;

// Standard alphabet, '=' padding, no line breaks (OpenSSL's EVP_EncodeBlock, which Mod-Gearman uses).
[[nodiscard]] std::string base64_encode(std::string_view bytes);
// Accepts what Mod-Gearman and the Go worker accept: whitespace around the text and line breaks inside it
// are ignored; anything else outside the alphabet, or a length that is not a multiple of 4, is an error.
[[nodiscard]] base::Expected<std::string> base64_decode(std::string_view text);

class Codec {
 public:
  // base64 only (encryption=no). open() takes any base64 payload.
  static Codec clear();
  // AES-256-ECB with `key` cut to its first 32 bytes (or its first NUL) and zero-padded, as Mod-Gearman's
  // mod_gm_aes_init. accept_clear: open() also takes an unencrypted payload that starts with "type="
  // (accept_clear_results, for send_gearman without the key).
  static Codec encrypted(std::string_view key, bool accept_clear = false);

  [[nodiscard]] bool encrypts() const { return encrypt_; }

  // The wire form of `plaintext`. Encrypted, the plaintext gets a NUL and zero bytes up to a multiple of
  // 16, exactly as mod_gm_aes_encrypt pads: (length + 1) already a multiple of 16 still gets a whole block
  // of zeros, except when it is exactly 16. An error only if OpenSSL fails.
  [[nodiscard]] base::Expected<std::string> seal(std::string_view plaintext) const;
  // The plaintext of a wire payload, cut at its first NUL (the padding). Errors name what was wrong: too
  // large, not base64, not whole AES blocks. A wrong key is not detected here: it yields text that the
  // payload parsers reject.
  [[nodiscard]] base::Expected<std::string> open(std::string_view wire) const;

 private:
  std::array<unsigned char, k_key_bytes> key_{};
  bool encrypt_ = false;
  bool accept_clear_ = false;
};

// Mod-Gearman's keyfile=: the file's first line, at most 32 bytes of it, trailing whitespace removed
// (read_keyfile). An error when it cannot be read or yields an empty key.
[[nodiscard]] base::Expected<std::string> read_key_file(const std::string& path);

}  // namespace vedette::gearman
