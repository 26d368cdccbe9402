#include "gearman/payload.hpp"

#include "gearman/transport.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace vedette::gearman {
namespace {

// The compatibility vectors below were computed independently of this code, with the OpenSSL and
// coreutils command-line tools, from Mod-Gearman's rules: the key's bytes zero-padded to 32 (hex below),
// the plaintext followed by a NUL and zero bytes up to a multiple of 16 (a whole extra block when
// length + 1 is already one, except for exactly 16), AES-256-ECB without padding, base64 on one line:
//
//   keyhex() { printf '%s' "$1" | head -c 32 | xxd -p | tr -d '\n' |
//              awk '{s=$0; while (length(s)<64) s=s "0"; print s}'; }
//   { printf "$PLAINTEXT"; head -c $ZEROS /dev/zero; } |
//       openssl enc -aes-256-ecb -nopad -K $(keyhex "$KEY") | base64 -w0

constexpr std::string_view k_key = "should_be_changed";  // Mod-Gearman's sample key (17 bytes)

// 200 bytes; + NUL = 201, padded to 208: ZEROS=8.
constexpr std::string_view k_service_job =
    "type=service\nresult_queue=check_results\ntarget_queue=service\nhost_name=web01\n"
    "service_description=HTTP\ncore_time=1700000000.250000\ntimeout=60\n"
    "command_line=/usr/lib/nagios/plugins/check_http -H web01\n\n\n";
// KEY=should_be_changed (73686f756c645f62655f6368616e676564 + zeros), ZEROS=8.
constexpr std::string_view k_service_job_wire =
    "wuyIXMz+16Yrsk+"
    "RkDoGE1fxNhOE6U80BnfQ8yf1QP9oM0Lf9siZbtZcIRq2uwXyZ8bEzPiRAZHNNLW8Eh21F95EBiKkHMuWZ8V85Lsxbu"
    "tHRjECuMdjqUhRgksPPdBGHMbzYVvasgw37uqxxTKK3LLXgh04XtoLiHK8oYQNQmLChMSlMBghnAlYawRft0jcbH5/pebk/"
    "b+N1mV04wlR"
    "Nr0Ml+vHJKICplKArFhg/AW9SdIzM5aP/y3MZ/0ej/2oC9JGHBzmzekfOyttXUd+ig==";
// encryption=no: printf "$PLAINTEXT" | base64 -w0
constexpr std::string_view k_service_job_clear_wire =
    "dHlwZT1zZXJ2aWNlCnJlc3VsdF9xdWV1ZT1jaGVja19yZXN1bHRzCnRhcmdldF9xdWV1ZT1zZXJ2aWNlCmhvc3RfbmFtZT13ZWIwMQpz"
    "ZXJ2"
    "aWNlX2Rlc2NyaXB0aW9uPUhUVFAKY29yZV90aW1lPTE3MDAwMDAwMDAuMjUwMDAwCnRpbWVvdXQ9NjAKY29tbWFuZF9saW5lPS91c3Iv"
    "bGli"
    "L25hZ2lvcy9wbHVnaW5zL2NoZWNrX2h0dHAgLUggd2ViMDEKCgo=";

Job service_job() {
  Job job;
  job.type = JobType::service;
  job.result_queue = "check_results";
  job.target_queue = "service";
  job.host_name = "web01";
  job.service_description = "HTTP";
  job.core_time_us = 1'700'000'000'250'000;
  job.timeout_s = 60;
  job.command_line = "/usr/lib/nagios/plugins/check_http -H web01";
  return job;
}

TEST(GearmanPayload, ServiceJobMatchesModGearmanByteForByte) {
  EXPECT_EQ(format_job(service_job()), k_service_job);
  auto wire = Codec::encrypted(k_key).seal(format_job(service_job()));
  ASSERT_TRUE(wire) << wire.error();
  EXPECT_EQ(*wire, k_service_job_wire);
  auto clear = Codec::clear().seal(format_job(service_job()));
  ASSERT_TRUE(clear);
  EXPECT_EQ(*clear, k_service_job_clear_wire);
}

TEST(GearmanPayload, CompatibilityVectorsOpenBothWays) {
  auto text = Codec::encrypted(k_key).open(k_service_job_wire);
  ASSERT_TRUE(text) << text.error();
  EXPECT_EQ(*text, k_service_job);
  auto clear = Codec::clear().open(k_service_job_clear_wire);
  ASSERT_TRUE(clear) << clear.error();
  EXPECT_EQ(*clear, k_service_job);

  auto job = parse_job(*text);
  ASSERT_TRUE(job) << job.error();
  EXPECT_EQ(job->type, JobType::service);
  EXPECT_EQ(job->result_queue, "check_results");
  EXPECT_EQ(job->target_queue, "service");
  EXPECT_EQ(job->host_name, "web01");
  EXPECT_EQ(job->service_description, "HTTP");
  EXPECT_EQ(job->core_time_us, 1'700'000'000'250'000);
  EXPECT_EQ(job->timeout_s, 60);
  EXPECT_EQ(job->command_line, "/usr/lib/nagios/plugins/check_http -H web01");
}

TEST(GearmanPayload, ExtraZeroBlockWhenLengthPlusNulIsAMultipleOf16) {
  // 31 bytes + NUL = 32: mod_gm_aes_encrypt appends 16 more zeros (ZEROS=17), 48 bytes in all.
  constexpr std::string_view plain = "type=host\nhost_name=a\noutput=x\n";
  constexpr std::string_view wire = "xO2XaXY7K7rwhxRTmUNV1YNZe56tUeGZSa65dAC2vqI6TI5bOsrd1ZptuSXetzhw";
  auto sealed = Codec::encrypted(k_key).seal(plain);
  ASSERT_TRUE(sealed);
  EXPECT_EQ(*sealed, wire);
  auto opened = Codec::encrypted(k_key).open(wire);
  ASSERT_TRUE(opened);
  EXPECT_EQ(*opened, plain);
}

TEST(GearmanPayload, KeyLongerThan32BytesIsCut) {
  // KEY=0123456789abcdef0123456789ABCDEF-extra: keyhex 3031...4546 (its first 32 bytes); 10 bytes + NUL
  // padded to 16: ZEROS=6.
  constexpr std::string_view wire = "zeTpfMwfjKsEBK8KPGJwjQ==";
  auto sealed = Codec::encrypted("0123456789abcdef0123456789ABCDEF-extra").seal("type=host\n");
  ASSERT_TRUE(sealed);
  EXPECT_EQ(*sealed, wire);
  auto opened = Codec::encrypted("0123456789abcdef0123456789ABCDEF").open(wire);
  ASSERT_TRUE(opened);
  EXPECT_EQ(*opened, "type=host\n");
}

TEST(GearmanPayload, ExactlyOneBlockGetsNoPadding) {
  // KEY=abcdefghijklmnopqrstuvwxyz012345 (exactly 32); 15 bytes + NUL = 16: ZEROS=1.
  constexpr std::string_view wire = "4swhexyYiT8Fw3HGnzS3wA==";
  auto sealed = Codec::encrypted("abcdefghijklmnopqrstuvwxyz012345").seal("type=host\nab=c\n");
  ASSERT_TRUE(sealed);
  EXPECT_EQ(*sealed, wire);
}

TEST(GearmanPayload, ReadsAGoWorkerResult) {
  // ConSol's Go worker pads with newlines, not zeros, and sends no NUL:
  //   R='type=active\nhost_name=web01\nservice_description=HTTP\ncore_start_time=1700000000.250000\n'
  //   R="$R"'start_time=1700000000.300000\nfinish_time=1700000000.420000\nreturn_code=2\nexited_ok=1\n'
  //   R="$R"'source=Mod-Gearman Worker @ w1\noutput=CRITICAL - down\\nline2|time=0.1s\n'   # 243 bytes
  //   { printf "$R"; yes '' | head -c 13; } | openssl enc -aes-256-ecb -nopad -K $(keyhex should_be_changed)
  //   |
  //       base64 -w0
  constexpr std::string_view wire =
      "C4m4NstzDThuVhAb4jdtyM4mxu0VCB+UzgJ3eiTgJm4sEwk+54Bx/hKr/m/nC2kdp6/"
      "fThHyGjAyLCk1TPifV4DNBvU0XEye4d1j0QrSn/"
      "k1dtoZ0BoW9tWVbLU+7Z0uLsmmOkEw2PIuYooBZd/BM6s2RPDKBbNolMhovte9+6Jt1H5YKkysQ8D1zU8/"
      "prPjJRH+eiYeSWv2OtLwh4zj7F"
      "rInLN9NK5dpbbEVuU5KjsVk/"
      "AG+mJaNIgGYVIxM3W9546tV+SwprV39nuY2+Wvu25LOA2oQiRehl5bOns9MTIxdkKcB4cI1jOe0xjhrDfuLr"
      "1mRR6eIiF4FktV3La26A==";
  auto text = Codec::encrypted(k_key).open(wire);
  ASSERT_TRUE(text) << text.error();
  auto r = parse_result(*text);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->host_name, "web01");
  EXPECT_EQ(r->service_description, "HTTP");
  EXPECT_FALSE(r->passive);
  EXPECT_EQ(r->core_start_time_us, 1'700'000'000'250'000);
  EXPECT_EQ(r->start_time_us, 1'700'000'000'300'000);
  EXPECT_EQ(r->finish_time_us, 1'700'000'000'420'000);
  EXPECT_EQ(r->return_code, 2);
  EXPECT_TRUE(r->exited_ok);
  EXPECT_EQ(r->source, "Mod-Gearman Worker @ w1");
  EXPECT_EQ(r->output, "CRITICAL - down\nline2|time=0.1s");
}

TEST(GearmanPayload, ReadsACWorkerResult) {
  // send_result_back's layout: no type, service_description after source, output then "\n\n\n\n".
  //   C='host_name=db1\ncore_start_time=0.000000\nstart_time=1700000001.000000\n'
  //   C="$C"'finish_time=1700000001.500000\nreturn_code=0\nexited_ok=1\nsource=Mod-Gearman Worker @ w2\n'
  //   C="$C"'output=PING OK\\n[stderr text] \n\n\n\n'                                   # 189 bytes
  //   { printf "$C"; head -c 3 /dev/zero; } | openssl enc -aes-256-ecb -nopad -K $(keyhex should_be_changed)
  //   |
  //       base64 -w0
  constexpr std::string_view wire =
      "MK71l49WaUZz71KXIarN1Y9JDwvmr70WqPDVf15PiTkHumAduy+"
      "LDkJ9llIMfIrjnSPRfcPtnzcH9XhVtWhRoKs2RPDKBbNolMhovte9+6I2"
      "zj9+7yTIh9atMjGdEeAMrd2wUKqV3KP3oqEITsaBxlrInLN9NK5dpbbEVuU5KjsVk/"
      "AG+mJaNIgGYVIxM3W9d2Kb8eAh+4BLDdzt+ffO9nAY"
      "vjN/e1Bf4iwJ1U0KJ1M7rzCwdDAf2mmsDYNwkN06";
  auto text = Codec::encrypted(k_key).open(wire);
  ASSERT_TRUE(text) << text.error();
  auto r = parse_result(*text);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->host_name, "db1");
  EXPECT_TRUE(r->service_description.empty());
  EXPECT_EQ(r->core_start_time_us, 0);
  EXPECT_EQ(r->start_time_us, 1'700'000'001'000'000);
  EXPECT_EQ(r->finish_time_us, 1'700'000'001'500'000);
  EXPECT_EQ(r->return_code, 0);
  EXPECT_EQ(r->output, "PING OK\n[stderr text] ");
  // The same text sealed by us is what the C worker sends.
  auto sealed = Codec::encrypted(k_key).seal(*text);
  ASSERT_TRUE(sealed);
  EXPECT_EQ(*sealed, wire);
}

TEST(GearmanPayload, ReadsASendGearmanPassiveResult) {
  const std::string text =
      "type=passive\nhost_name=h1\nstart_time=1700000000.000000\nfinish_time=1700000000.000000\n"
      "latency=0.500000\nreturn_code=1\nsource=send_gearman\nservice_description=disk\noutput=WARN\n\n";
  auto r = parse_result(text);
  ASSERT_TRUE(r) << r.error();
  EXPECT_TRUE(r->passive);
  EXPECT_EQ(r->host_name, "h1");
  EXPECT_EQ(r->service_description, "disk");
  EXPECT_EQ(r->latency_us, 500'000);
  EXPECT_EQ(r->return_code, 1);
  EXPECT_EQ(r->output, "WARN");
}

TEST(GearmanPayload, HostAndHandlerJobsHaveModGearmansLayout) {
  Job host;
  host.type = JobType::host;
  host.result_queue = "check_results";
  host.target_queue = "hostgroup_dmz";
  host.host_name = "gw";
  host.core_time_us = 1'700'000'000'000'001;
  host.timeout_s = 30;
  host.command_line = "/bin/check_ping -H gw";
  EXPECT_EQ(format_job(host),
            "type=host\nresult_queue=check_results\ntarget_queue=hostgroup_dmz\nhost_name=gw\n"
            "core_time=1700000000.000001\ntimeout=30\ncommand_line=/bin/check_ping -H gw\n\n\n");

  Job handler;
  handler.type = JobType::eventhandler;
  handler.start_time_us = 1'700'000'000'500'000;
  handler.core_time_us = 1'700'000'000'500'000;
  handler.command_line = "/bin/restart_it";
  EXPECT_EQ(format_job(handler),
            "type=eventhandler\nstart_time=1700000000.500000\ncore_time=1700000000.500000\n"
            "command_line=/bin/restart_it\n\n\n");

  Job note;
  note.type = JobType::notification;
  note.start_time_us = 1'700'000'000'000'000;
  note.core_time_us = 1'700'000'000'100'000;
  note.contact = "admin";
  note.command_line = "/bin/mail -s 'x\ny'";  // a newline in a value travels as "\n"
  note.plugin_output = "DOWN";
  note.long_plugin_output = "more";
  EXPECT_EQ(format_job(note),
            "type=notification\nstart_time=1700000000.000000\ncore_time=1700000000.100000\ncontact=admin\n"
            "command_line=/bin/mail -s 'x\\ny'\nplugin_output=DOWN\nlong_plugin_output=more\n\n\n");
}

TEST(GearmanPayload, JobsRoundTripThroughBothCodecs) {
  Job note;
  note.type = JobType::notification;
  note.start_time_us = 1'700'000'000'000'000;
  note.core_time_us = 1'700'000'000'100'000;
  note.contact = "GLOBAL";
  note.command_line = "/bin/notify";
  note.plugin_output = "CRITICAL";
  note.long_plugin_output = "details";
  Job host = service_job();
  host.type = JobType::host;
  host.service_description.clear();
  for (const Codec& codec : {Codec::clear(), Codec::encrypted(k_key)}) {
    for (const Job& job : {service_job(), host, note}) {
      auto wire = codec.seal(format_job(job));
      ASSERT_TRUE(wire);
      auto text = codec.open(*wire);
      ASSERT_TRUE(text) << text.error();
      auto back = parse_job(*text);
      ASSERT_TRUE(back) << back.error();
      EXPECT_EQ(back->type, job.type);
      EXPECT_EQ(back->result_queue, job.result_queue);
      EXPECT_EQ(back->target_queue, job.target_queue);
      EXPECT_EQ(back->host_name, job.host_name);
      EXPECT_EQ(back->service_description, job.service_description);
      EXPECT_EQ(back->core_time_us, job.core_time_us);
      EXPECT_EQ(back->start_time_us, job.start_time_us);
      EXPECT_EQ(back->timeout_s, job.timeout_s);
      EXPECT_EQ(back->command_line, job.command_line);
      EXPECT_EQ(back->contact, job.contact);
      EXPECT_EQ(back->plugin_output, job.plugin_output);
      EXPECT_EQ(back->long_plugin_output, job.long_plugin_output);
    }
  }
}

TEST(GearmanPayload, ResultsRoundTrip) {
  Result r;
  r.host_name = "web01";
  r.service_description = "HTTP";
  r.return_code = 2;
  r.exited_ok = false;
  r.early_timeout = true;
  r.scheduled_check = false;
  r.check_options = 3;
  r.core_start_time_us = 1'700'000'000'250'000;
  r.start_time_us = 1'700'000'000'300'000;
  r.finish_time_us = 1'700'000'000'420'000;
  r.latency_us = 1'000;
  r.source = "Vedette worker @ w1";
  r.output = "CRITICAL - down\nsecond line|t=1s\nthird";
  for (const Codec& codec : {Codec::clear(), Codec::encrypted(k_key)}) {
    auto wire = codec.seal(format_result(r));
    ASSERT_TRUE(wire);
    auto text = codec.open(*wire);
    ASSERT_TRUE(text);
    auto back = parse_result(*text);
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(back->host_name, r.host_name);
    EXPECT_EQ(back->service_description, r.service_description);
    EXPECT_EQ(back->passive, r.passive);
    EXPECT_EQ(back->return_code, r.return_code);
    EXPECT_EQ(back->exited_ok, r.exited_ok);
    EXPECT_EQ(back->early_timeout, r.early_timeout);
    EXPECT_EQ(back->scheduled_check, r.scheduled_check);
    EXPECT_EQ(back->check_options, r.check_options);
    EXPECT_EQ(back->core_start_time_us, r.core_start_time_us);
    EXPECT_EQ(back->start_time_us, r.start_time_us);
    EXPECT_EQ(back->finish_time_us, r.finish_time_us);
    EXPECT_EQ(back->latency_us, r.latency_us);
    EXPECT_EQ(back->source, r.source);
    EXPECT_EQ(back->output, r.output);
  }
  // A host result with an empty output.
  Result host;
  host.host_name = "gw";
  auto back = parse_result(format_result(host));
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->output, "");
  EXPECT_TRUE(back->service_description.empty());
}

TEST(GearmanPayload, ReadingStopsAtTheFirstLineWithoutAValue) {
  // As Mod-Gearman's readers: "key=" or a line without '=' ends the scan.
  auto fields = split_fields("a=1\nb=2\n\nc=3\n");
  ASSERT_EQ(fields.size(), 2u);
  EXPECT_EQ(fields[1].key, "b");
  auto empty_value = split_fields("a=1\nb=\nc=3");
  ASSERT_EQ(empty_value.size(), 2u);
  EXPECT_EQ(empty_value[1].value, "");
  auto split_at_first = split_fields("command_line=/bin/x --a=b\n");
  ASSERT_EQ(split_at_first.size(), 1u);
  EXPECT_EQ(split_at_first[0].value, "/bin/x --a=b");
  // A result whose output comes after an empty value is rejected, as the NEB module rejects it.
  EXPECT_FALSE(parse_result("host_name=h\nsource=\noutput=x\n"));
}

TEST(GearmanPayload, OlderModulesStartTimeSetsTheCoreTime) {
  // Before 2022 the NEB module sent start_time= and next_check= in check jobs.
  auto job = parse_job(
      "type=service\nresult_queue=check_results\nhost_name=h\nservice_description=s\n"
      "start_time=1600000000.0\nnext_check=1600000001.0\ntimeout=60\ncommand_line=/bin/true\n\n\n");
  ASSERT_TRUE(job) << job.error();
  EXPECT_EQ(job->core_time_us, 1'600'000'000'000'000);
  EXPECT_EQ(job->next_check_us, 1'600'000'001'000'000);
}

TEST(GearmanPayload, MalformedPlaintextIsRejectedWithAReason) {
  EXPECT_FALSE(parse_job(""));
  EXPECT_FALSE(parse_job("host_name=h\ntype=host\ncommand_line=x\n"));  // must start with type=
  EXPECT_FALSE(parse_job("type=perfdata\ncommand_line=x\n"));
  EXPECT_FALSE(parse_job("type=host\nhost_name=h\n"));                     // no command line
  EXPECT_FALSE(parse_job("type=host\ncommand_line=/bin/true\n"));          // no host name
  EXPECT_FALSE(parse_job("type=service\nhost_name=h\ncommand_line=x\n"));  // no service description
  EXPECT_FALSE(parse_job("type=host\nhost_name=h\ntimeout=ten\ncommand_line=x\n"));
  auto bad_time = parse_job("type=host\nhost_name=h\ncore_time=12:00\ncommand_line=x\n");
  ASSERT_FALSE(bad_time);
  EXPECT_NE(bad_time.error().find("core_time"), std::string::npos) << bad_time.error();

  EXPECT_FALSE(parse_result(""));
  EXPECT_FALSE(parse_result("output=x\n"));     // no host
  EXPECT_FALSE(parse_result("host_name=h\n"));  // no output
  EXPECT_FALSE(parse_result("host_name=h\nreturn_code=two\noutput=x\n"));
  auto no_host = parse_result("garbage");
  ASSERT_FALSE(no_host);
  EXPECT_NE(no_host.error().find("wrong key"), std::string::npos) << no_host.error();
}

TEST(GearmanPayload, AWrongKeyIsRejected) {
  auto wire = Codec::encrypted(k_key).seal(format_job(service_job()));
  ASSERT_TRUE(wire);
  auto text = Codec::encrypted("another key").open(*wire);
  ASSERT_TRUE(text);  // AES cannot tell; the payload check does
  auto job = parse_job(*text);
  ASSERT_FALSE(job);
  EXPECT_NE(job.error().find("wrong key"), std::string::npos) << job.error();

  Result r;
  r.host_name = "h";
  r.output = "x";
  auto result_wire = Codec::encrypted(k_key).seal(format_result(r));
  ASSERT_TRUE(result_wire);
  auto result_text = Codec::encrypted("another key").open(*result_wire);
  ASSERT_TRUE(result_text);
  EXPECT_FALSE(parse_result(*result_text));
}

TEST(GearmanPayload, GarbageNeverCrashesTheParsers) {
  std::mt19937 rng(1);
  const std::string alphabet = "=\n\\ntype=host_nameoutput0123456789.-";
  for (int i = 0; i < 5000; ++i) {
    std::string junk(rng() % 200, '\0');
    for (char& c : junk) c = i % 2 ? static_cast<char>(rng()) : alphabet[rng() % alphabet.size()];
    (void)parse_job(junk);
    (void)parse_result(junk);
    (void)split_fields(junk);
  }
}

TEST(GearmanPayload, UniqueKeyIsUpperCaseMd5) {
  // printf 'web01-HTTP' | md5sum; printf 'web01' | md5sum
  EXPECT_EQ(unique_key("web01", "HTTP"), "1717506FC617C7E26344D318CDF54E7C");
  EXPECT_EQ(unique_key("web01", ""), "2F527604E1DEFF1329720282D8D3CFA1");
}

TEST(GearmanPayload, TimesAreSecondsWithSixDecimals) {
  EXPECT_EQ(format_time(0), "0.000000");
  EXPECT_EQ(format_time(1'700'000'000'000'001), "1700000000.000001");
  EXPECT_EQ(format_time(-1'500'000), "-1.500000");
  EXPECT_EQ(parse_time("1700000000.25"), 1'700'000'000'250'000);
  EXPECT_EQ(parse_time("1700000000"), 1'700'000'000'000'000);
  EXPECT_EQ(parse_time(" 12.0000019 "), 12'000'001);  // past six decimals: cut
  EXPECT_EQ(parse_time("-0.5"), -500'000);
  EXPECT_EQ(parse_time(".5"), 500'000);
  EXPECT_FALSE(parse_time(""));
  EXPECT_FALSE(parse_time("."));
  EXPECT_FALSE(parse_time("1e9"));
  EXPECT_FALSE(parse_time("1.2.3"));
  EXPECT_FALSE(parse_time("99999999999999999999"));
}

}  // namespace
}  // namespace vedette::gearman
