#include "app/huge_pages.hpp"

#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

namespace vedette::app {

namespace {

constexpr const char* k_marker = "VEDETTE_MALLOC_REEXEC";  // set across the one re-exec
constexpr const char* k_saved = "VEDETTE_SAVED_TUNABLES";  // the caller's GLIBC_TUNABLES, if any
constexpr const char* k_tunable = "glibc.malloc.hugetlb=1";

bool kernel_offers_huge_pages_on_request() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(in, modes);
  return modes.find("[madvise]") != std::string::npos;
}

}  // namespace

void use_huge_pages_for_malloc(char** argv) {
  if (std::getenv(k_marker) != nullptr) {
    // Second start: the tunable is in effect; give the environment back as it was.
    const char* saved = std::getenv(k_saved);
    if (saved != nullptr && *saved != '\0')
      setenv("GLIBC_TUNABLES", saved, 1);
    else
      unsetenv("GLIBC_TUNABLES");
    unsetenv(k_saved);
    unsetenv(k_marker);
    return;
  }
  if (!kernel_offers_huge_pages_on_request()) return;
  const char* current = std::getenv("GLIBC_TUNABLES");
  std::string tunables = current == nullptr ? "" : current;
  if (tunables.find("glibc.malloc.hugetlb") != std::string::npos) return;  // the caller chose already
  setenv(k_saved, tunables.c_str(), 1);
  setenv(k_marker, "1", 1);
  setenv("GLIBC_TUNABLES", tunables.empty() ? k_tunable : (tunables + ":" + k_tunable).c_str(), 1);
  execv("/proc/self/exe", argv);
  // Not possible here (no /proc?): carry on with normal pages.
  unsetenv(k_marker);
  unsetenv(k_saved);
  if (current != nullptr)
    setenv("GLIBC_TUNABLES", current, 1);
  else
    unsetenv("GLIBC_TUNABLES");
}

}  // namespace vedette::app
