#include "app/cli.hpp"
#include "app/huge_pages.hpp"

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {

// Huge pages halve the time to load a big configuration, but a running daemon on them spent three times the
// core-thread CPU per check (bench/perfbench/run.sh, 10k services: the hypervisor backs each guest huge page
// in small pieces, and the core touches scattered state). So only verification runs, which load and exit,
// use them; the daemon's one-off load is a few hundred ms slower at 100k services.
bool is_verify_run(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "-v" || arg == "-vv" || arg == "--verify-config") return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (is_verify_run(argc, argv)) vedette::app::use_huge_pages_for_malloc(argv);
  const int rc = vedette::app::run_cli(argc, argv);
  // The process is done: skip tearing down a model of 100k objects piece by piece (5% of `vedette -v`).
  std::fflush(nullptr);
  std::_Exit(rc);
}
