#include "tsdb/line_format.hpp"

#include "tsdb/metric_names.hpp"
#include "tsdb/perfdata_values.hpp"
#include "tsdb/sample.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vedette::tsdb {
namespace {

std::vector<PerfdataValue> read_all(std::string_view perf_data) {
  std::vector<PerfdataValue> out;
  PerfdataReader reader(perf_data);
  for (PerfdataValue v; reader.next(v);) out.push_back(v);
  return out;
}

TEST(PerfdataReader, ReadsLabelsValuesUnitsAndPlainThresholds) {
  const auto values = read_all("time=0.012s;1;2;0; size=42B 'disk /var'=81%;80:;90;0;100 'it''s'=1");
  ASSERT_EQ(values.size(), 4u);
  EXPECT_EQ(values[0].label, "time");
  EXPECT_DOUBLE_EQ(values[0].value, 0.012);
  EXPECT_EQ(values[0].unit, "s");
  EXPECT_EQ(values[0].warn, 1.0);
  EXPECT_EQ(values[0].crit, 2.0);
  EXPECT_EQ(values[0].min, 0.0);
  EXPECT_FALSE(values[0].max);
  EXPECT_EQ(values[1].label, "size");
  EXPECT_EQ(values[1].unit, "B");
  EXPECT_FALSE(values[1].warn);
  EXPECT_EQ(values[2].label, "disk /var");
  EXPECT_FALSE(values[2].warn);  // a range ("80:") is left out
  EXPECT_EQ(values[2].crit, 90.0);
  EXPECT_EQ(values[2].max, 100.0);
  EXPECT_EQ(values[3].label, "it's");
}

TEST(PerfdataReader, SkipsWhatIsNotAValue) {
  const auto values = read_all("  junk =3 x=U y= z=-1.5e3c ok=+7 'unterminated=1");
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values[0].label, "z");
  EXPECT_DOUBLE_EQ(values[0].value, -1500);
  EXPECT_EQ(values[0].unit, "c");
  EXPECT_EQ(values[1].label, "ok");
  EXPECT_DOUBLE_EQ(values[1].value, 7);
  EXPECT_TRUE(read_all("").empty());
}

TEST(MetricNames, GraphiteEscapesAsIcinga) {
  std::string out;
  append_graphite_component("web 01.example/a\\b", out);
  EXPECT_EQ(out, "web_01_example_a_b");
  out.clear();
  append_graphite_label("disk::/var space.used", out);
  EXPECT_EQ(out, "disk._var_space.used");
}

TEST(MetricNames, InfluxEscapes) {
  std::string out;
  append_influx_measurement("check ping,x=1", out);
  EXPECT_EQ(out, "check\\ ping\\,x=1");
  out.clear();
  append_influx_key("a b,c=d\ne", out);
  EXPECT_EQ(out, "a\\ b\\,c\\=d\\ e");
  out.clear();
  append_influx_string("say \"hi\" \\o/", out);
  EXPECT_EQ(out, "\"say \\\"hi\\\" \\\\o/\"");
  out.clear();
  append_number(0.1, out);
  out += ' ';
  append_number(3, out);
  EXPECT_EQ(out, "0.1 3");
}

Sample http_sample() {
  return Sample{.name = "vedette.web01.services.HTTP",
                .host = "web 01",
                .service = "HTTP",
                .perf_data = "time=0.5s;1;2;0 size=42B",
                .time = 1700000000,
                .latency = 0.25,
                .execution_time = 0.5,
                .state = 1,
                .hard = false,
                .current_attempt = 2};
}

TEST(LineFormat, GraphiteLayout) {
  Sample s = http_sample();
  s.max_check_attempts = 3;
  s.reachable = false;
  s.downtime_depth = 1;
  s.acknowledgement = 2;
  std::string out;
  append_graphite_lines(s, LineOptions{}, out);
  EXPECT_EQ(out,
            "vedette.web01.services.HTTP.perfdata.time.value 0.5 1700000000\n"
            "vedette.web01.services.HTTP.perfdata.time.warn 1 1700000000\n"
            "vedette.web01.services.HTTP.perfdata.time.crit 2 1700000000\n"
            "vedette.web01.services.HTTP.perfdata.time.min 0 1700000000\n"
            "vedette.web01.services.HTTP.perfdata.size.value 42 1700000000\n"
            "vedette.web01.services.HTTP.metadata.state 1 1700000000\n"
            "vedette.web01.services.HTTP.metadata.current_attempt 2 1700000000\n"
            "vedette.web01.services.HTTP.metadata.max_check_attempts 3 1700000000\n"
            "vedette.web01.services.HTTP.metadata.state_type 0 1700000000\n"
            "vedette.web01.services.HTTP.metadata.reachable 0 1700000000\n"
            "vedette.web01.services.HTTP.metadata.downtime_depth 1 1700000000\n"
            "vedette.web01.services.HTTP.metadata.acknowledgement 2 1700000000\n"
            "vedette.web01.services.HTTP.metadata.latency 0.25 1700000000\n"
            "vedette.web01.services.HTTP.metadata.execution_time 0.5 1700000000\n");
  out.clear();
  append_graphite_lines(http_sample(), LineOptions{.thresholds = false, .metadata = false}, out);
  EXPECT_EQ(out,
            "vedette.web01.services.HTTP.perfdata.time.value 0.5 1700000000\n"
            "vedette.web01.services.HTTP.perfdata.size.value 42 1700000000\n");
}

TEST(LineFormat, InfluxLineProtocol) {
  Sample s = http_sample();
  s.name = "check_http";
  std::string out;
  append_influx_lines(s, LineOptions{}, out);
  EXPECT_EQ(
      out,
      "check_http,hostname=web\\ 01,service=HTTP,metric=time value=0.5,warn=1,crit=2,min=0,unit=\"s\" "
      "1700000000\n"
      "check_http,hostname=web\\ 01,service=HTTP,metric=size value=42,unit=\"B\" 1700000000\n"
      "check_http,hostname=web\\ 01,service=HTTP state=1i,current_attempt=2i,max_check_attempts=1i,"
      "state_type=0i,reachable=true,downtime_depth=0i,acknowledgement=0i,latency=0.25,execution_time=0.5 "
      "1700000000\n");
  s.service = {};
  s.perf_data = {};
  s.acknowledgement = 1;
  out.clear();
  append_influx_lines(s, LineOptions{}, out);
  EXPECT_EQ(
      out,
      "check_http,hostname=web\\ 01 state=1i,current_attempt=2i,max_check_attempts=1i,state_type=0i,"
      "reachable=true,downtime_depth=0i,acknowledgement=1i,latency=0.25,execution_time=0.5 1700000000\n");
}

TEST(SampleCodec, RoundTripsBackToBack) {
  std::string buffer;
  Sample a = http_sample();
  Sample b = http_sample();
  b.service = {};
  b.perf_data = "rta=1ms";
  b.hard = true;
  encode_sample(a, buffer);
  encode_sample(b, buffer);
  EXPECT_EQ(buffer.size(), encoded_size(a) + encoded_size(b));
  std::string_view in = buffer;
  Sample out;
  ASSERT_TRUE(decode_sample(in, out));
  EXPECT_EQ(out.name, a.name);
  EXPECT_EQ(out.host, a.host);
  EXPECT_EQ(out.perf_data, a.perf_data);
  EXPECT_EQ(out.current_attempt, 2);
  EXPECT_FALSE(out.hard);
  ASSERT_TRUE(decode_sample(in, out));
  EXPECT_EQ(out.service, "");
  EXPECT_EQ(out.perf_data, "rta=1ms");
  EXPECT_TRUE(out.hard);
  EXPECT_EQ(out.time, 1700000000);
  EXPECT_FALSE(decode_sample(in, out));
  std::string_view truncated = std::string_view(buffer).substr(0, 10);
  EXPECT_FALSE(decode_sample(truncated, out));
}

}  // namespace
}  // namespace vedette::tsdb
