#include "config/main_config.hpp"
#include "config_test_support.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace vedette::config {
namespace {

namespace fs = std::filesystem;

class PerfdataWritersConfigTest : public test::TempDirTest {
 protected:
  MainConfig load(const std::string& content) {
    path_ = dir_ + "/naemon.cfg";
    std::ofstream(path_) << content;
    diags_ = Diagnostics{};
    return load_main_config(path_, files_, diags_);
  }
  std::vector<std::string> messages() const {
    std::vector<std::string> out;
    for (const Diagnostic& d : diags_.all()) out.push_back(Diagnostics::format(d));
    return out;
  }
  std::string at(int line) const {
    return " (config file '" + path_ + "', line " + std::to_string(line) + ")";
  }

  std::string path_;
  SourceFiles files_;
  Diagnostics diags_;
};

TEST_F(PerfdataWritersConfigTest, DefaultsFollowIcingaLayout) {
  const PerfdataWriters w = load("").perfdata_writers;
  EXPECT_FALSE(w.graphite.is_set());
  EXPECT_FALSE(w.influxdb.is_set());
  EXPECT_EQ(w.graphite_service_template, "vedette.$HOSTNAME$.services.$SERVICEDESC$.$SERVICECHECKCOMMAND$");
  EXPECT_EQ(w.graphite_host_template, "vedette.$HOSTNAME$.host.$HOSTCHECKCOMMAND$");
  EXPECT_EQ(w.influxdb_service_measurement_template, "$SERVICECHECKCOMMAND$");
  EXPECT_FALSE(w.send_thresholds);  // Icinga 2's enable_send_thresholds and enable_send_metadata
  EXPECT_FALSE(w.send_metadata);
  EXPECT_EQ(w.buffer_size, std::size_t{16} << 20);
  EXPECT_TRUE(diags_.all().empty());
}

TEST_F(PerfdataWritersConfigTest, EndpointsAndOptions) {
  const PerfdataWriters w = load(
                                "graphite_writer=127.0.0.1:2003\n"
                                "graphite_service_template=nagios.$HOSTNAME$.$SERVICEDESC$\n"
                                "influxdb_writer=http://[::1]:8087/\n"
                                "influxdb_database=perf\n"
                                "influxdb_username=vedette\n"
                                "influxdb_password=s3cret\n"
                                "perfdata_writer_send_thresholds=0\n"
                                "perfdata_writer_buffer_size=1048576\n"
                                "perfdata_writer_flush_interval=200\n"
                                "perfdata_writer_timeout=2\n")
                                .perfdata_writers;
  EXPECT_TRUE(diags_.all().empty()) << ::testing::PrintToString(messages());
  EXPECT_EQ(w.graphite.host, "127.0.0.1");
  EXPECT_EQ(w.graphite.port, 2003);
  EXPECT_EQ(w.graphite_service_template, "nagios.$HOSTNAME$.$SERVICEDESC$");
  EXPECT_EQ(w.influxdb.host, "::1");
  EXPECT_EQ(w.influxdb.port, 8087);
  EXPECT_FALSE(w.influxdb_v2());
  EXPECT_EQ(w.influxdb_password, "s3cret");
  EXPECT_FALSE(w.send_thresholds);
  EXPECT_EQ(w.buffer_size, 1048576u);
  EXPECT_EQ(w.flush_interval_ms, 200);
  EXPECT_EQ(w.timeout_s, 2);
  EXPECT_EQ(load("influxdb_writer=http://db.example\ninfluxdb_bucket=b\ninfluxdb_org=o\ninfluxdb_token=t\n")
                .perfdata_writers.influxdb.port,
            8086);
  EXPECT_TRUE(diags_.all().empty()) << ::testing::PrintToString(messages());
}

TEST_F(PerfdataWritersConfigTest, BadValuesAreRefusedWithFileAndLine) {
  load(
      "graphite_writer=localhost\n"
      "graphite_writer=localhost:99999\n"
      "graphite_writer=::1:2003\n"
      "graphite_service_template=vedette.$HOSTNAME.x\n"
      "influxdb_writer=https://db:8086\n"
      "perfdata_writer_buffer_size=10\n"
      "perfdata_writer_send_metadata=yes\n");
  EXPECT_EQ(
      messages(),
      (std::vector<std::string>{
          "Error: option 'graphite_writer': invalid address 'localhost': expected host:port" + at(1),
          "Error: option 'graphite_writer': invalid port '99999': expected 1 to 65535" + at(2),
          "Error: option 'graphite_writer': invalid address '::1:2003': write an IPv6 address as "
          "[address]:port" +
              at(3),
          "Error: option 'graphite_service_template': unbalanced '$' in template 'vedette.$HOSTNAME.x'" +
              at(4),
          "Error: option 'influxdb_writer': 'https://db:8086': https is not supported; use http:// "
          "(through a local TLS proxy if needed)" +
              at(5),
          "Error: option 'perfdata_writer_buffer_size': invalid value '10': expected an integer from "
          "65536 to 4294967296" +
              at(6),
          "Error: option 'perfdata_writer_send_metadata': invalid value 'yes': expected 0 or 1" + at(7),
      }));
}

TEST_F(PerfdataWritersConfigTest, InfluxdbNeedsADatabaseOrABucket) {
  load("influxdb_writer=http://127.0.0.1:8086\n");
  EXPECT_EQ(messages(),
            (std::vector<std::string>{
                "Error: influxdb_writer: needs influxdb_database (InfluxDB 1.x) or influxdb_bucket "
                "and influxdb_org (2.x)" +
                at(1)}));
  load("influxdb_database=a\ninfluxdb_writer=http://127.0.0.1:8086\ninfluxdb_bucket=b\n");
  EXPECT_EQ(
      messages(),
      (std::vector<std::string>{
          "Error: influxdb_writer: set influxdb_database (InfluxDB 1.x) or influxdb_bucket (2.x), not both" +
              at(2),
          "Error: influxdb_writer: influxdb_bucket needs influxdb_org" + at(2),
          "Error: influxdb_writer: influxdb_bucket needs influxdb_token" + at(2)}));
}

}  // namespace
}  // namespace vedette::config
