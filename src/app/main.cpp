#include "app/cli.hpp"

int main(int argc, char** argv) {
  return vedette::app::run_cli(argc, argv);
}
