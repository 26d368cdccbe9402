#include "gearman/transport.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>

namespace vedette::gearman {
namespace {

TEST(GearmanBase64, EncodesTheRfc4648Vectors) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foob"), "Zm9vYg==");
  EXPECT_EQ(base64_encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64_encode(std::string("\xff\xfe\x00", 3)), "//4A");
}

TEST(GearmanBase64, EncodesWithoutLineBreaks) {
  const std::string out = base64_encode(std::string(1000, 'x'));
  EXPECT_EQ(out.find('\n'), std::string::npos);
  EXPECT_EQ(out.size(), 1336u);
}

TEST(GearmanBase64, DecodesWhatItEncodes) {
  std::mt19937 rng(7);
  for (int len = 0; len < 200; ++len) {
    std::string bytes(static_cast<std::size_t>(len), '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    if (len == 0) continue;  // an empty payload is an error, see below
    auto back = base64_decode(base64_encode(bytes));
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(*back, bytes);
  }
}

TEST(GearmanBase64, IgnoresLineBreaksAndSurroundingWhitespace) {
  // Mod-Gearman strips newlines before retrying EVP_DecodeBlock; Go's decoder skips \r and \n.
  auto a = base64_decode("  Zm9v\nYmFy\r\n");
  ASSERT_TRUE(a) << a.error();
  EXPECT_EQ(*a, "foobar");
  auto b = base64_decode("Zm9vYg==\n");
  ASSERT_TRUE(b) << b.error();
  EXPECT_EQ(*b, "foob");
}

TEST(GearmanBase64, RejectsMalformedText) {
  EXPECT_FALSE(base64_decode(""));
  EXPECT_FALSE(base64_decode(" \n "));
  EXPECT_FALSE(base64_decode("Zm9"));        // not a multiple of 4
  EXPECT_FALSE(base64_decode("Zm9v Zm9v"));  // a space inside
  EXPECT_FALSE(base64_decode("Zm9v*m9v"));
  EXPECT_FALSE(base64_decode("Z==="));      // '=' too early
  EXPECT_FALSE(base64_decode("Zg==Zm9v"));  // data after the padding
  EXPECT_FALSE(base64_decode("Zm=v"));
  EXPECT_FALSE(base64_decode(std::string("Zm9v\0Zm9v", 9)));
  const auto error = base64_decode("Zm9v*m9v");
  EXPECT_NE(error.error().find("offset 4"), std::string::npos) << error.error();
}

TEST(GearmanCodec, ClearCodecIsBase64Only) {
  const Codec codec = Codec::clear();
  EXPECT_FALSE(codec.encrypts());
  auto wire = codec.seal("type=host\n");
  ASSERT_TRUE(wire);
  EXPECT_EQ(*wire, "dHlwZT1ob3N0Cg==");
  auto back = codec.open(*wire);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, "type=host\n");
}

TEST(GearmanCodec, PadsLikeModGearman) {
  // length + 1 (the NUL) rounded up to 16; a multiple of 16 other than 16 itself gets one more block.
  const Codec codec = Codec::encrypted("key");
  const auto sealed_bytes = [&](std::size_t n) {
    auto wire = codec.seal(std::string(n, 'a'));
    EXPECT_TRUE(wire);
    auto raw = base64_decode(*wire);
    EXPECT_TRUE(raw);
    return raw->size();
  };
  EXPECT_EQ(sealed_bytes(0), 16u);   // Mod-Gearman fails here; we pad to a block
  EXPECT_EQ(sealed_bytes(7), 16u);   // likewise
  EXPECT_EQ(sealed_bytes(10), 16u);  // 11 + 5
  EXPECT_EQ(sealed_bytes(15), 16u);  // exactly 16: no padding
  EXPECT_EQ(sealed_bytes(16), 32u);
  EXPECT_EQ(sealed_bytes(30), 32u);
  EXPECT_EQ(sealed_bytes(31), 48u);  // 32: a whole block of zeros more
  EXPECT_EQ(sealed_bytes(47), 64u);
  EXPECT_EQ(sealed_bytes(100), 112u);
}

TEST(GearmanCodec, RoundTripsAnyLengthWithEncryption) {
  const Codec codec = Codec::encrypted("should_be_changed");
  for (std::size_t n = 0; n < 100; ++n) {
    std::string text(n, 'x');
    for (std::size_t i = 0; i < n; ++i) text[i] = static_cast<char>('a' + i % 26);
    auto wire = codec.seal(text);
    ASSERT_TRUE(wire);
    auto back = codec.open(*wire);
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(*back, text);
  }
}

TEST(GearmanCodec, KeysAreCutAndPaddedTo32Bytes) {
  const std::string k32 = "abcdefghijklmnopqrstuvwxyz012345";
  auto long_key = Codec::encrypted(k32 + "-ignored").seal("type=host\n");
  auto exact_key = Codec::encrypted(k32).seal("type=host\n");
  ASSERT_TRUE(long_key && exact_key);
  EXPECT_EQ(*long_key, *exact_key);
  // A short key is zero-padded, so "abc" and "abc\0\0" are the same key, and "abcd" is not.
  auto short_key = Codec::encrypted("abc").seal("type=host\n");
  auto nul_key = Codec::encrypted(std::string("abc\0\0", 5)).seal("type=host\n");
  auto other_key = Codec::encrypted("abcd").seal("type=host\n");
  ASSERT_TRUE(short_key && nul_key && other_key);
  EXPECT_EQ(*short_key, *nul_key);
  EXPECT_NE(*short_key, *other_key);
}

TEST(GearmanCodec, RejectsWhatItCannotOpen) {
  const Codec codec = Codec::encrypted("should_be_changed");
  // Not base64.
  EXPECT_FALSE(codec.open("this is not base64!"));
  // Base64 of 10 bytes: not whole AES blocks.
  auto partial = codec.open(base64_encode("0123456789"));
  ASSERT_FALSE(partial);
  EXPECT_NE(partial.error().find("AES blocks"), std::string::npos) << partial.error();
  // Too large to look at.
  EXPECT_FALSE(codec.open(std::string(k_max_wire_bytes + 4, 'A')));
}

TEST(GearmanCodec, AcceptsClearPayloadsOnlyWhenAllowed) {
  const std::string clear_wire = *Codec::clear().seal("type=passive\nhost_name=h\noutput=x\n");
  // accept_clear_results=no: decrypted as if encrypted (34 bytes: not whole blocks).
  EXPECT_FALSE(Codec::encrypted("k").open(clear_wire));
  auto accepted = Codec::encrypted("k", true).open(clear_wire);
  ASSERT_TRUE(accepted) << accepted.error();
  EXPECT_EQ(*accepted, "type=passive\nhost_name=h\noutput=x\n");
  // Encrypted payloads still open with accept_clear on.
  const Codec both = Codec::encrypted("k", true);
  auto back = both.open(*both.seal("host_name=h\noutput=y\n"));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, "host_name=h\noutput=y\n");
}

TEST(GearmanCodec, RandomInputNeverCrashes) {
  std::mt19937 rng(42);
  const Codec codecs[] = {Codec::clear(), Codec::encrypted("k"), Codec::encrypted("k", true)};
  for (int i = 0; i < 2000; ++i) {
    std::string junk(rng() % 300, '\0');
    for (char& c : junk) c = static_cast<char>(rng());
    if (i % 2 == 0) junk = base64_encode(junk);  // valid base64, garbage inside
    for (const Codec& codec : codecs) (void)codec.open(junk);
  }
}

TEST(GearmanKeyFile, ReadsTheFirstLineUpTo32Bytes) {
  const auto dir = std::filesystem::temp_directory_path() / ("vedette-keyfile-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name, std::ios::binary) << text;
    return (dir / name).string();
  };
  auto a = read_key_file(write("a", "secret-key  \nsecond line\n"));
  ASSERT_TRUE(a) << a.error();
  EXPECT_EQ(*a, "secret-key");
  auto b = read_key_file(write("b", std::string(40, 'k') + "\n"));
  ASSERT_TRUE(b);
  EXPECT_EQ(*b, std::string(32, 'k'));
  EXPECT_FALSE(read_key_file(write("c", "")));
  EXPECT_FALSE(read_key_file(write("d", "   \n")));
  EXPECT_FALSE(read_key_file((dir / "missing").string()));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace vedette::gearman
