# The two commands of the README: `make run` and `make test`. Everything else is a helper.
SANITIZE ?= 0
ifeq ($(SANITIZE),1)
  BUILD_DIR := build/sanitize
  CMAKE_FLAGS := -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVEDETTE_SANITIZE=ON
else
  BUILD_DIR := build/release
  CMAKE_FLAGS := -DCMAKE_BUILD_TYPE=Release
endif
JOBS ?= $(shell nproc)
PREFIX ?= /usr/local

# make run builds only the three programs, so it needs neither GoogleTest nor Google Benchmark; make test
# configures the same build directory with the tests and benchmarks (the objects already built stay).
PROGRAMS := vedette vedette-worker vedettestats
CONFIGURE = cmake -S . -B $(BUILD_DIR) -G Ninja $(CMAKE_FLAGS) -DCMAKE_INSTALL_PREFIX=$(PREFIX)

.PHONY: all deps deps-run build build-programs run test install package package-test bench fuzz format clean

all: build

deps-run:
	@scripts/install-deps.sh run

deps:
	@scripts/install-deps.sh test

build: deps
	@$(CONFIGURE) -DVEDETTE_BUILD_TESTS=ON -DVEDETTE_BUILD_BENCH=ON >/dev/null
	cmake --build $(BUILD_DIR) -j $(JOBS)

build-programs: deps-run
	@$(CONFIGURE) -DVEDETTE_BUILD_TESTS=OFF -DVEDETTE_BUILD_BENCH=OFF >/dev/null
	cmake --build $(BUILD_DIR) -j $(JOBS) --target $(PROGRAMS)

# Prints where the demo's files, socket and pipe are, then runs Vedette on etc/demo/ in the foreground.
run: build-programs
	@scripts/demo-run.sh $(BUILD_DIR)/vedette etc/demo/vedette.cfg

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# Installs under PREFIX (/usr/local), or under DESTDIR/PREFIX when DESTDIR is set: programs, manual pages,
# systemd units, logrotate file, documentation (docs/install.md).
install: build-programs
	cmake --install $(BUILD_DIR)

# The Debian package, built by dpkg-buildpackage from a copy of the tree, checked by lintian
# (build/package/), and its test in a fresh Debian 12 root, which needs root and the Debian mirror
# (docs/install.md).
package:
	@scripts/install-deps.sh package
	scripts/build-package.sh build/package

package-test: package
	tests/package/debootstrap_test.sh $$(ls build/package/vedette_*.deb)

# Benchmarks need a quiet machine and root (the peer harness); see bench/ and docs for the others
# (bench/perfbench/run.sh, max_rate.sh).
bench: build
	python3 bench/config/load_bench.py --bin $(BUILD_DIR)/vedette
	bench/state_files.sh --build $(BUILD_DIR)

# libFuzzer targets (tests/fuzz, clang, build/fuzz), each run FUZZ_SECONDS (default 60) from its seeds.
fuzz:
	@scripts/install-deps.sh fuzz
	FUZZ_CXX=clang++-14 scripts/fuzz.sh

format:
	find src tests bench -name '*.cpp' -o -name '*.hpp' | xargs clang-format -i

clean:
	rm -rf build
