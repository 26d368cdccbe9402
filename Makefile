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

.PHONY: all deps build run test bench fuzz format clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja $(CMAKE_FLAGS)

build: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS)

# Prints where the demo's files, socket and pipe are, then runs Vedette on etc/demo/ in the foreground.
run: build
	@scripts/demo-run.sh $(BUILD_DIR)/vedette etc/demo/vedette.cfg

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

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
