# swift-yajl: the two commands of the README, and the developer targets.
#   make demo   build in release, generate a ~256 MiB document, run `yajl stats` on it
#   make test   run the test suite
# Both install what is missing first (libyajl-dev, pkg-config, yajl-tools, time, valgrind).
#   make hardening   the test suite under AddressSanitizer, the tool under valgrind and against
#                    hostile documents, its peak memory per command (make footprint), and a short
#                    run of each fuzz target (CI runs it after `make test`)
#   make fuzz        the fuzz targets, FUZZ_SECONDS each (default 60; the release check uses 600)
#   make fuzz-build  the fuzz binary only (built again only when one of its sources is newer)
#   make docs        the DocC archives of YAJL and YAJLHTTP in .build/docs; fails on any warning
#                    and on any public symbol without a doc comment
#   make lint        swift-format's lint of the whole tree (.swift-format), strict
#   make format      swift-format applied to the whole tree
#   make bench-peers ijson, orjson, json, jq, json_verify and json_reformat beside yajl,
#                    Decodable records beside JSONDecoder and ijson, and `yajl stats` beside a C
#                    program counting with libyajl's callbacks: Docs/Peers.md
#   make bench-shapes validate, minify and typed events beside json_verify, json_reformat and C on
#                    seven documents of unusual shapes (escapes, deep nesting, ...): Docs/Shapes.md
#   make bench-size  the peak and resident memory of `yajl validate` beside json_verify, by mapped
#                    file (Benchmarks/process-size.sh)

SWIFT      ?= swift
DEMO_DIR   ?= demo-data
DEMO_SIZE  ?= 256M
BIN        := .build/release

# Release builds are the toolchain's standard release build, with the Swift runtime linked
# statically (--static-swift-stdlib) so that the tool runs where no toolchain is installed.
# libyajl, zlib and the C library stay the distribution's shared libraries, so their security
# updates reach the tool. RELEASE_FLAGS= gives the fully dynamic build.
RELEASE_FLAGS ?= --static-swift-stdlib
SWIFT_RELEASE = $(SWIFT) build -c release $(RELEASE_FLAGS)

FUZZ_SECONDS ?= 60
# The three targets run side by side on CI's two cores: 45 s each is about the 30 s of one core
# each that they had one after another.
SMOKE_FUZZ_SECONDS ?= 45

.PHONY: all deps build release test docs lint format bench-peers bench-shapes bench-size bench-segments bench-threads demo bench bench-quick bench-report clean hardening sanitize leaks hostile footprint fuzz fuzz-build fuzz-smoke

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT_RELEASE) --product yajl

# Tests run one at a time: the memory checks read the process's peak RSS, which tests running
# side by side would inflate.
# Warnings are errors: the tree builds clean in Swift 6 language mode.
test: deps
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	@bash scripts/run-tests.sh

docs: deps
	@bash scripts/docs.sh

FORMATTED := Sources Tests Benchmarks Fuzz Package.swift

lint:
	$(SWIFT) format lint --strict --recursive $(FORMATTED)

format:
	$(SWIFT) format format --in-place --recursive $(FORMATTED)

hardening: sanitize leaks hostile footprint fuzz-smoke

sanitize: deps
	@bash scripts/sanitized-tests.sh

leaks: release
	@bash scripts/valgrind-tool.sh $(BIN)/yajl

hostile: release
	@bash scripts/hostile-inputs.sh $(BIN)/yajl

# The tool's peak memory on 16 MiB of records, command by command, within 20 MiB.
footprint: release
	@bash scripts/footprint.sh $(BIN)/yajl

fuzz: deps
	@FUZZ_SECONDS=$(FUZZ_SECONDS) bash scripts/fuzz.sh

fuzz-smoke: deps
	@FUZZ_SECONDS=$(SMOKE_FUZZ_SECONDS) bash scripts/fuzz.sh

# The fuzz binary alone (fuzz and fuzz-smoke build it when it is missing or older than a source).
fuzz-build: deps
	@bash scripts/fuzz.sh --build-only

demo: release
	@bash scripts/demo.sh "$(BIN)/yajl" "$(DEMO_DIR)" "$(DEMO_SIZE)"

bench: deps
	$(SWIFT_RELEASE) --product YAJLBenchmarks
	$(BIN)/YAJLBenchmarks $(BENCH_ARGS)

# Segmented download against a loopback server limited per connection: 1, 2 and 4 connections.
bench-segments: release
	@bash Benchmarks/segments.sh $(BIN)/yajl

# NDJSON with and without --threads (stats, validate, extract), interleaved rounds.
bench-threads: release
	@python3 Benchmarks/ndjson-threads.py $(BIN)/yajl

bench-quick: deps
	$(SWIFT_RELEASE) --product YAJLBenchmarks
	$(BIN)/YAJLBenchmarks --quick $(BENCH_ARGS)

bench-report: deps
	$(SWIFT_RELEASE) --product YAJLBenchmarks
	$(BIN)/YAJLBenchmarks --report --large $(BENCH_ARGS)
	@$(MAKE) --no-print-directory bench-peers
	@$(MAKE) --no-print-directory bench-shapes

# The resident memory of `yajl validate` beside json_verify, and what it is made of (smaps).
SIZE_DOC ?= $(firstword $(wildcard ../shared/corpus/twitter.json) .build/bench-data/records-16MiB.json)
bench-size: release
	@mkdir -p .build/bench-data
	@[ -f $(SIZE_DOC) ] || $(BIN)/yajl generate $(SIZE_DOC) --kind records --size 16M > /dev/null
	@bash Benchmarks/process-size.sh $(SIZE_DOC) $(BIN)/yajl

# The peers a user would pick instead (ijson, orjson, json, jq, json_verify, json_reformat), each
# as its own process on the same documents, and the library's Decodable records beside JSONDecoder
# and ijson (the benchmark's own cases, one run per process): Docs/Peers.md.
# DocumentGenerator.version, which each generated document carries in its `meta`.
GENERATOR_VERSION := $(shell sed -n 's/.*static let version = \([0-9][0-9]*\).*/\1/p' Sources/YAJLFixtures/DocumentGenerator.swift)
PEER_DOCS ?= .build/bench-data/records-16MiB.json .build/bench-data/numbers-16MiB.json
bench-peers: release
	@mkdir -p .build/bench-data
	$(SWIFT_RELEASE) --product YAJLBenchmarks
	@# Made again when missing or written by an earlier generator (GENERATOR_VERSION).
	@for kind in records numbers; do f=.build/bench-data/$$kind-16MiB.json; \
	  head -c 96 $$f 2>/dev/null | grep -q '"version":$(GENERATOR_VERSION)}' || \
	  $(BIN)/yajl generate $$f --kind $$kind --size 16M > /dev/null; done
	@# Five rounds: with three, the medians of whole processes moved by 15-35% between reports.
	python3 Benchmarks/peers.py --rounds 5 $(PEER_DOCS) $(wildcard ../shared/corpus/canada.json ../shared/corpus/citm_catalog.json ../shared/corpus/twitter.json)

# Seven documents of one unusual shape each (non-ASCII text, escapes, small integers, deep nesting,
# literals, long strings, indentation): validate, minify and typed events beside json_verify,
# json_reformat and C over libyajl, each as its own process: Docs/Shapes.md.
bench-shapes: release
	$(SWIFT_RELEASE) --product YAJLBenchmarks
	python3 Benchmarks/shapes.py

clean:
	rm -rf .build $(DEMO_DIR)
