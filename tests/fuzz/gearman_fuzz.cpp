// The Mod-Gearman payload decoder: what arrives on the result queue (or at a worker) is unwrapped from
// base64 and AES (transport.hpp) and read as a result or a job (payload.hpp).
#include "gearman/payload.hpp"
#include "gearman/transport.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

void read_payload(std::string_view text) {
  (void)vedette::gearman::split_fields(text);
  if (auto result = vedette::gearman::parse_result(text)) (void)vedette::gearman::format_result(*result);
  if (auto job = vedette::gearman::parse_job(text)) (void)vedette::gearman::format_job(*job);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view wire(reinterpret_cast<const char*>(data), size);
  static const vedette::gearman::Codec clear = vedette::gearman::Codec::clear();
  static const vedette::gearman::Codec encrypted = vedette::gearman::Codec::encrypted("should_be_changed", true);
  read_payload(wire);
  if (auto text = clear.open(wire)) read_payload(*text);
  if (auto text = encrypted.open(wire)) read_payload(*text);
  (void)vedette::gearman::parse_time(wire);
  return 0;
}
