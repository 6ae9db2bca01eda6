# swift-yajl: the two commands of the README, and the developer targets.
#   make demo   build in release, generate a ~256 MiB document, run `yajl stats` on it
#   make test   run the test suite
# Both install what is missing first (libyajl-dev, pkg-config, yajl-tools, time).

SWIFT      ?= swift
DEMO_DIR   ?= demo-data
DEMO_SIZE  ?= 256M
BIN        := .build/release

.PHONY: all deps build release test demo bench bench-quick bench-report clean

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product yajl

# Tests run one at a time: the memory checks read the process's peak RSS, which tests running
# side by side would inflate.
test: deps
	$(SWIFT) build --build-tests
	@bash scripts/run-tests.sh

demo: release
	@bash scripts/demo.sh "$(BIN)/yajl" "$(DEMO_DIR)" "$(DEMO_SIZE)"

bench: deps
	$(SWIFT) build -c release --product YAJLBenchmarks
	$(BIN)/YAJLBenchmarks $(BENCH_ARGS)

bench-quick: deps
	$(SWIFT) build -c release --product YAJLBenchmarks
	$(BIN)/YAJLBenchmarks --quick $(BENCH_ARGS)

bench-report: deps
	$(SWIFT) build -c release --product YAJLBenchmarks
	$(BIN)/YAJLBenchmarks --report --large $(BENCH_ARGS)

clean:
	rm -rf .build $(DEMO_DIR)
