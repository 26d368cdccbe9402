#include "app/cli.hpp"

#include <fmt/format.h>

namespace vedette::app {

int run_cli(int, char**) {
  fmt::print("Vedette {}\n", VEDETTE_VERSION);
  return 0;
}

}  // namespace vedette::app
