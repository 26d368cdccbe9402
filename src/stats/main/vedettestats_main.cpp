// vedettestats: the statistics naemonstats (Naemon 1.5.2) prints, from the status.dat Vedette writes,
// with naemonstats' options and output, so MRTG/PNP/Cacti graphs of the core and check_nagiostats-style
// plugins keep working. Only the banner names Vedette (docs/compatibility.md).
#include "stats/report.hpp"
#include "stats/status_file_path.hpp"
#include "stats/status_summary.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <getopt.h>
#include <optional>
#include <string>

namespace {

// Debian's Naemon package keeps its main config here; -c names another.
constexpr const char* k_default_config = "/etc/naemon/naemon.cfg";

void print_usage(const char* program) {
  fmt::print(
      "Usage: {} [options]\n"
      "\n"
      "Startup:\n"
      " -V, --version      print the version and exit.\n"
      " -L, --license      print the version and exit.\n"
      " -h, --help         print this help and exit.\n"
      "\n"
      "Input file:\n"
      " -c, --config=FILE  main config file (naemon.cfg) naming the status file.\n"
      " -s, --statsfile=FILE  read this status file instead of the config's.\n"
      "\n"
      "Output:\n"
      " -m, --mrtg         MRTG mode: only the values named by -d.\n"
      " -d, --data=VARS    comma-separated variables for MRTG mode (below).\n"
      "                    Percentages are truncated, times are in milliseconds.\n"
      " -D, --delimiter=C  text after each MRTG value (default: a newline).\n"
      "\n"
      "MRTG DATA VARIABLES (-d option):\n"
      " PROGRUNTIME, PROGRUNTIMETT      time the core has been running (text, seconds).\n"
      " STATUSFILEAGE, STATUSFILEAGETT  age of the status file (text, seconds).\n"
      " NAGIOSVERSION, NAGIOSPID, NAGIOSVERPID  version, pid, both.\n"
      " NUMSERVICES, NUMHOSTS           number of services and hosts.\n"
      " NUMSVCOK, NUMSVCWARN, NUMSVCUNKN, NUMSVCCRIT, NUMSVCPROB  services by state.\n"
      " NUMSVCCHECKED, NUMSVCSCHEDULED, NUMSVCFLAPPING, NUMSVCDOWNTIME\n"
      " NUMHSTUP, NUMHSTDOWN, NUMHSTUNR, NUMHSTPROB  hosts by state.\n"
      " NUMHSTCHECKED, NUMHSTSCHEDULED, NUMHSTFLAPPING, NUMHSTDOWNTIME\n"
      " NUMHSTACTCHKxM, NUMHSTPSVCHKxM  hosts checked actively/passively in the last x minutes.\n"
      " NUMSVCACTCHKxM, NUMSVCPSVCHKxM  services checked actively/passively in the last x minutes.\n"
      " xxxACTSVCLAT, xxxACTSVCEXT, xxxACTSVCPSC, xxxPSVSVCLAT, xxxPSVSVCPSC, xxxSVCPSC\n"
      " xxxACTHSTLAT, xxxACTHSTEXT, xxxACTHSTPSC, xxxPSVHSTLAT, xxxPSVHSTPSC, xxxHSTPSC\n"
      "                    latency (LAT, ms), execution time (EXT, ms), % state change (PSC).\n"
      " NUMACTHSTCHECKSxM, NUMOACTHSTCHECKSxM, NUMSACTHSTCHECKSxM, NUMCACHEDHSTCHECKSxM,\n"
      " NUMPARHSTCHECKSxM, NUMSERHSTCHECKSxM, NUMPSVHSTCHECKSxM  host checks in the last x minutes\n"
      "                    (all active, on-demand, scheduled, cached, parallel, serial, passive).\n"
      " NUMACTSVCCHECKSxM, NUMOACTSVCCHECKSxM, NUMSACTSVCCHECKSxM, NUMCACHEDSVCCHECKSxM,\n"
      " NUMPSVSVCCHECKSxM  service checks in the last x minutes.\n"
      " NUMEXTCMDSxM       external commands in the last x minutes.\n"
      "\n"
      " xxx is MIN, MAX or AVG; x is 1, 5 or 15 (and 60 for the ...CHKxM counts).\n"
      "\n",
      program);
}

}  // namespace

int main(int argc, char** argv) {
  std::string config = k_default_config;
  std::optional<std::string> status_file;
  std::string variables;
  bool have_variables = false;
  std::string delimiter = "\n";
  bool mrtg = false;
  bool help = false;
  bool version = false;

  static const option long_options[] = {
      {"help", no_argument, nullptr, 'h'},
      {"version", no_argument, nullptr, 'V'},
      {"license", no_argument, nullptr, 'L'},
      {"config", required_argument, nullptr, 'c'},
      {"statsfile", required_argument, nullptr, 's'},
      {"mrtg", no_argument, nullptr, 'm'},
      {"data", required_argument, nullptr, 'd'},
      {"delimiter", required_argument, nullptr, 'D'},
      {nullptr, 0, nullptr, 0},
  };
  // '+': options end at the first other argument, as in naemonstats.
  for (int c; (c = getopt_long(argc, argv, "+hVLc:ms:d:D:", long_options, nullptr)) != -1;) {
    switch (c) {
      case 'V':
      case 'L':
        version = true;
        break;
      case 'c':
        config = optarg;
        break;
      case 's':
        status_file = optarg;
        break;
      case 'm':
        mrtg = true;
        break;
      case 'd':
        variables = optarg;
        have_variables = true;
        break;
      case 'D':
        delimiter = optarg;
        break;
      default:
        help = true;
        break;  // -h and unknown options
    }
  }

  // As many lines as naemonstats' banner, so that a script skipping it still finds the report.
  if (!mrtg) {
    fmt::print(
        "\nVedette Stats {}\n"
        "Statistics of the Vedette monitoring core from its status data,\n"
        "with the options, report and MRTG values of naemonstats (Naemon 1.5.2)\n"
        "Run with -h for the MRTG variables\n\n",
        VEDETTE_VERSION);
  }
  if (version) return 0;
  if (help) {
    print_usage(argv[0]);
    return 1;
  }

  if (!status_file) {
    const vedette::stats::StatusFilePath found = vedette::stats::status_file_from_main_config(config);
    if (!found.config_read && !mrtg) {
      fmt::print("Error processing config file '{}'\n", config);
      return 1;
    }
    status_file = found.path;
  }

  // One reading of the clock for the whole run, so every age and count is relative to the same second.
  const std::int64_t now = std::time(nullptr);
  vedette::stats::SummaryResult read;
  if (status_file) {
    read = vedette::stats::read_status_summary(*status_file, now);
  } else {
    read.error = EFAULT;  // naemonstats opens a null path here; this is the error it reports
  }
  if (read.error != 0 && !mrtg) {
    fmt::print("Error reading status file '{}': {}\n", status_file.value_or("(null)"),
               std::strerror(read.error));
    return 1;
  }

  if (!mrtg) {
    fmt::print("{}", vedette::stats::format_report(read.summary, status_file.value_or("(null)"), now));
  } else if (have_variables) {
    fmt::print("{}", vedette::stats::format_mrtg(read.summary, variables, delimiter, now));
  }
  return read.error != 0 ? 1 : 0;
}
