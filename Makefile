# swift-yajl: the two commands of the README, and the developer targets.
#   make demo   build in release, generate a ~256 MiB document, run `yajl stats` on it
#   make test   run the test suite
# Both install what is missing first (libyajl-dev, pkg-config, yajl-tools, time, valgrind).
#   make hardening   the test suite under AddressSanitizer, the tool under valgrind and against
#                    hostile documents, its peak memory per command (make footprint), and a short
#                    run of each fuzz target (CI runs it after `make test`)
#   make fuzz        the fuzz targets, FUZZ_SECONDS each (default 60; the release check uses 600)
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
#   make link-order  rewrites scripts/link-order.txt, the order in which the release link lays out
#                    the functions the tool runs (callgrind runs of each command; see below)

SWIFT      ?= swift
DEMO_DIR   ?= demo-data
DEMO_SIZE  ?= 256M
BIN        := .build/release

# Release builds link the Swift runtime statically (--static-swift-stdlib), with lld, relative
# relocations packed (DT_RELR, glibc 2.36 and later) and identical code folded. The dynamic loader
# then maps 6 shared libraries instead of 21, with their symbol lookups and relocated pages. The
# tool imports YAJLCore, which links FoundationEssentials but not Foundation.
# libstdc++ (which the Swift runtime needs) is linked statically too: the runtime's link line asks
# for -lstdc++, so a directory whose libstdc++.so is a linker script naming libstdc++.a comes first
# in the search path (-Xswiftc -L; made by `make deps`). Relocating the shared libstdc++ cost 1.8M
# of the 3.2M instructions of `yajl validate` on an empty array, and 0.9 MiB resident.
# libyajl and zlib are linked from Debian's static archives (libyajl_s.a, libz.a; in libyajl-dev
# and zlib1g-dev) the same way: the same directory has libyajl.so and libz.so naming them, and a
# yajl.pc (--pkg-config-path) whose -L puts it before the system's library directory. Mapping the
# two shared libraries (open, mmap, relocations, symbol lookups) cost 0.1 ms of every start:
# `yajl validate` on an empty array 1.45 -> 1.34 ms (median of 200 interleaved runs), on
# twitter.json 2.07 -> 1.95 ms (json_verify: 2.06 ms). Like the Swift runtime it carries, the tool
# must then be rebuilt after a security update of libyajl or zlib. (libm stays shared: its static
# archive needs the loader's private symbols.)
# Measured (`make bench-size`; Docs/Architecture.md, section 8): `yajl validate` peaks at about
# 6 MiB, against 18.5 for the dynamic build with Foundation. The executable stays
# position-independent (ASLR). With --disable-local-rpath there is no $ORIGIN run path (the
# loader no longer looks for each of the 5 system libraries in 11 subdirectories of the build
# directory first), and -static-libgcc links the unwinder in instead of mapping libgcc_s: together
# 1.33 -> 1.15 ms of CPU for `yajl validate` on an empty array (perf stat -r 200).
# RELEASE_FLAGS= gives the toolchain's default dynamic build.
# The functions a run executes are laid out together, in the order of scripts/link-order.txt
# (written by `make link-order`, see scripts/link-order.py): the kernel maps an executable's pages
# 64 KiB at a time around each fault, so the same 0.4 MB of executed code spread over the whole
# 10 MB of text made 5.6 MiB of it resident. `yajl extract` on 16 MiB of records peaked at 10.6 MiB,
# now at 8.0 (Docs/Architecture.md, section 8). Our own modules are compiled with a section per
# function so that the linker can move each of them; a symbol the file names but the build no
# longer has is skipped silently.
LINK_ORDER := $(CURDIR)/scripts/link-order.txt
LINK_ORDER_FLAGS := $(if $(wildcard $(LINK_ORDER)),-Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections \
  -Xlinker --symbol-ordering-file=$(LINK_ORDER) -Xlinker --no-warn-symbol-ordering)
RELR_OK := $(shell ldd --version 2>/dev/null | head -1 | awk '{split($$NF, v, "."); if (v[1] > 2 || (v[1] == 2 && v[2] >= 36)) print "yes"}')
STATIC_CXX := $(firstword $(wildcard $(foreach cc,c++ cc clang,$(filter /%,$(shell $(cc) -print-file-name=libstdc++.a 2>/dev/null)))))
LIB_DIR := $(shell pkg-config --variable=libdir yajl 2>/dev/null || echo /usr/lib/x86_64-linux-gnu)
STATIC_YAJL := $(wildcard $(LIB_DIR)/libyajl_s.a)
STATIC_Z := $(wildcard $(LIB_DIR)/libz.a)
STATIC_LIB_DIR := $(CURDIR)/.build/static-libs
# Without a yajl.pc or a library script in it (no static archive), the directory adds nothing and
# SwiftPM and the linker find the system's.
RELEASE_FLAGS ?= --static-swift-stdlib -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld -Xlinker --icf=all \
  --disable-local-rpath -Xswiftc -Xclang-linker -Xswiftc -static-libgcc \
  $(if $(RELR_OK),-Xlinker -z -Xlinker pack-relative-relocs) \
  --pkg-config-path $(STATIC_LIB_DIR)/pkgconfig -Xswiftc -L$(STATIC_LIB_DIR) $(LINK_ORDER_FLAGS)
SWIFT_RELEASE = $(SWIFT) build -c release $(RELEASE_FLAGS)

FUZZ_SECONDS ?= 60
SMOKE_FUZZ_SECONDS ?= 30

.PHONY: all deps static-libs build release link-order test docs lint format bench-peers bench-shapes bench-size bench-segments bench-threads demo bench bench-quick bench-report clean hardening sanitize leaks hostile footprint fuzz fuzz-smoke

all: build

deps:
	@bash scripts/install-deps.sh
	@$(MAKE) --no-print-directory static-libs

# A make of its own (run by deps), so that the archives are looked for after install-deps.sh has
# installed the -dev packages, not when this make started.
static-libs:
	@mkdir -p $(STATIC_LIB_DIR)/pkgconfig
	@$(if $(STATIC_CXX),echo 'INPUT($(STATIC_CXX))' > $(STATIC_LIB_DIR)/libstdc++.so,echo "make: no libstdc++.a found (c++, cc or clang -print-file-name): release builds link libstdc++ dynamically")
	@$(if $(STATIC_Z),echo 'INPUT($(STATIC_Z))' > $(STATIC_LIB_DIR)/libz.so,echo "make: no libz.a in $(LIB_DIR): release builds link zlib dynamically")
	@if [ -n "$(STATIC_YAJL)" ]; then \
	  echo 'INPUT($(STATIC_YAJL))' > $(STATIC_LIB_DIR)/libyajl.so; \
	  printf 'Name: yajl\nDescription: libyajl_s.a, for the release link (Makefile)\nVersion: %s\nCflags: %s\nLibs: -L%s -lyajl\n' \
	    "$$(pkg-config --modversion yajl)" "$$(pkg-config --cflags yajl)" "$(STATIC_LIB_DIR)" > $(STATIC_LIB_DIR)/pkgconfig/yajl.pc; \
	else echo "make: no libyajl_s.a in $(LIB_DIR): release builds link libyajl dynamically"; fi

build: deps
	$(SWIFT) build

# The linked tool is then written once more, front to back (cp, then mv over it): a file written
# by the linker, though byte for byte the same, took 0.15 ms longer to start while it stayed in
# the page cache (`yajl validate` on an empty array, 150 interleaved runs: 1.57 against 1.41 ms),
# about 7% of a 0.6 MiB document's whole run.
release: deps
	$(SWIFT_RELEASE) --product yajl
	cp $(BIN)/yajl $(BIN)/yajl.rewritten && mv -f $(BIN)/yajl.rewritten $(BIN)/yajl

# Rewrites scripts/link-order.txt from callgrind runs of the release tool (valgrind, from `make
# deps`); the next `make release` links with it.
link-order: release
	python3 scripts/link-order.py $(BIN)/yajl $(LINK_ORDER)

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

# The tool's peak memory on 16 MiB of records, command by command, within 10 MiB.
footprint: release
	@bash scripts/footprint.sh $(BIN)/yajl

fuzz: deps
	@FUZZ_SECONDS=$(FUZZ_SECONDS) bash scripts/fuzz.sh

fuzz-smoke: deps
	@FUZZ_SECONDS=$(SMOKE_FUZZ_SECONDS) bash scripts/fuzz.sh

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
