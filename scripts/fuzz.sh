#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, ASan + UBSan, in build/fuzz) and runs each for
# FUZZ_SECONDS (default 60) from its seed corpus. New inputs go to build/fuzz/corpus/<target>/ (the seeds in
# tests/fuzz/<target>/ are only read), crashes and timeouts to build/fuzz/artifacts/<target>/, each run's
# output to build/fuzz/<target>.log. Exits 1 if any target found something.
#   FUZZ_SECONDS=600 FUZZ_TARGETS="config retention" scripts/fuzz.sh
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-config command livestatus plugin_output retention gearman}
build=build/fuzz
clang=${FUZZ_CXX:-clang++}

if ! command -v "$clang" >/dev/null || [ ! -e "$("$clang" -print-file-name=libclang_rt.fuzzer-x86_64.a)" ]; then
  echo "fuzz: needs clang and libFuzzer (Debian: clang libclang-rt-dev)" >&2
  exit 2
fi
if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$clang" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DVEDETTE_FUZZ=ON -DVEDETTE_BUILD_TESTS=OFF -DVEDETTE_BUILD_BENCH=OFF \
    ${CMAKE_CXX_COMPILER_LAUNCHER:+-DCMAKE_CXX_COMPILER_LAUNCHER=$CMAKE_CXX_COMPILER_LAUNCHER}
fi
names=()
for t in $targets; do names+=("${t}_fuzz"); done
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target "${names[@]}"

found=0
for t in $targets; do
  mkdir -p "$build/corpus/$t" "$build/artifacts/$t"
  echo "fuzz: $t for ${seconds} s"
  if ! "$build/tests/fuzz/${t}_fuzz" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -print_final_stats=1 -artifact_prefix="$build/artifacts/$t/" \
      "$build/corpus/$t" "tests/fuzz/$t" >"$build/$t.log" 2>&1; then
    found=1
    echo "fuzz: $t found something (inputs in $build/artifacts/$t/):" >&2
    grep -A30 -m1 -E "^==[0-9]+==ERROR|runtime error|ALARM|Timeout" "$build/$t.log" >&2 || tail -30 "$build/$t.log" >&2
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+.*DONE" "$build/$t.log" || true
done
exit $found
