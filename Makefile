# nfstorm: coordinator (bin/nfstorm) and agent (bin/nfstorm-agent).
# common/, proto/ and net/ go into one static library both binaries link;
# agent/ and coordinator/ objects other than main.o go into their own
# libraries so unit tests can link any module.

.DEFAULT_GOAL := all

PKGS      := libuv msgpack inih jansson libcrypto liburing
CC        ?= cc
OPT       ?= -O2
CFLAGS    := -std=c11 -D_GNU_SOURCE $(OPT) -g -pthread \
             -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
             -Wmissing-prototypes -Wformat=2 -Wvla -Wimplicit-fallthrough -Wno-format-truncation \
             -I. $(shell pkg-config --cflags $(PKGS))
# libaio (Debian's libaio-dev) ships no pkg-config file
LDLIBS    := $(shell pkg-config --libs $(PKGS)) -laio -lm -pthread

# libnfs: the project's patched 5.x build in deps/ (scripts/build-libnfs.sh;
# the nfs engine needs its per-RPC observer, which no released libnfs has),
# else the system's, which then must carry the observer too; linked with an
# rpath (relative to bin/, then absolute) so the binaries run without
# LD_LIBRARY_PATH, also from a copied tree.
ifneq ($(wildcard deps/libnfs/lib/pkgconfig/libnfs.pc),)
NFS_PREFIX := $(CURDIR)/deps/libnfs
NFS_RAW_H  := $(NFS_PREFIX)/include/nfsc/libnfs-raw.h
CFLAGS     += -I$(NFS_PREFIX)/include
LDLIBS     += -L$(NFS_PREFIX)/lib -Wl,-rpath,'$$ORIGIN/../deps/libnfs/lib' -Wl,-rpath,$(NFS_PREFIX)/lib -lnfs
else
NFS_RAW_H  := $(firstword $(wildcard $(patsubst -I%,%/nfsc/libnfs-raw.h,$(shell pkg-config --cflags-only-I libnfs)) /usr/include/nfsc/libnfs-raw.h))
CFLAGS     += $(shell pkg-config --cflags libnfs)
LDLIBS     += $(shell pkg-config --libs libnfs)
endif
# (targets that install dependencies first check in their sub-make)
ifeq ($(filter clean deps deps-demo deps-bench unit integration test soak demo bench install,$(MAKECMDGOALS)),)
ifeq ($(shell grep -l rpc_set_observer $(NFS_RAW_H) 2>/dev/null),)
$(error libnfs lacks the per-RPC observer (rpc_set_observer, scripts/libnfs-observer.patch): run scripts/build-libnfs.sh to build the project's patched libnfs into deps/libnfs)
endif
endif
# The engine's object must be rebuilt when deps/libnfs appears after it was
# compiled against the system headers (its .d names only those, and it
# checks the libnfs version at compile time).
build/rel/agent/engine_nfs.o build/san/agent/engine_nfs.o build/rel/agent/nfs_conn.o build/san/agent/nfs_conn.o: $(wildcard deps/libnfs/lib/pkgconfig/libnfs.pc)

ifeq ($(SANITIZE),1)
BUILD   := build/san
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
else
BUILD   := build/rel
endif

COMMON_SRC := $(wildcard common/*.c) $(wildcard proto/*.c) $(wildcard net/*.c)
AGENT_SRC  := $(filter-out agent/main.c,$(wildcard agent/*.c))
COORD_SRC  := $(filter-out coordinator/cli/main.c,$(wildcard coordinator/*/*.c))
UNIT_SRC   := $(wildcard tests/unit/test_*.c)

obj = $(patsubst %.c,$(BUILD)/%.o,$(1))
LIBCOMMON := $(BUILD)/libcommon.a
LIBAGENT  := $(BUILD)/libagent.a
LIBCOORD  := $(BUILD)/libcoord.a
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))

.PHONY: all deps test unit integration demo clean bench valgrind soak fuzz fuzz-build fuzz-smoke fuzz-corpus bin/nfstorm bin/nfstorm-agent fuzz fuzz-smoke fuzz-corpus
all: bin/nfstorm bin/nfstorm-agent

# bin/ always holds the binaries of the last flavour built.
bin/nfstorm: $(BUILD)/nfstorm
	@mkdir -p bin && install -m 0755 $< $@
bin/nfstorm-agent: $(BUILD)/nfstorm-agent
	@mkdir -p bin && install -m 0755 $< $@

$(BUILD)/nfstorm: $(call obj,coordinator/cli/main.c) $(LIBCOORD) $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/nfstorm-agent: $(call obj,agent/main.c) $(LIBAGENT) $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(LIBCOMMON): $(call obj,$(COMMON_SRC))
	@rm -f $@; ar rcs $@ $^
$(LIBAGENT): $(call obj,$(AGENT_SRC))
	@rm -f $@; ar rcs $@ $^
$(LIBCOORD): $(call obj,$(COORD_SRC))
	@rm -f $@; ar rcs $@ $^

# `make V=1` shows the full commands.
Q := $(if $(V),,@)
$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(LIBAGENT) $(LIBCOORD) $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka
# test_msg_parse counts msgpack-c's unpacks: every call lands in its wrapper first.
$(BUILD)/tests/test_msg_parse: LDFLAGS += -Wl,--wrap=msgpack_unpack_next

# The Debian packages each target needs, in tiers (scripts/install-deps.sh
# gives each package's reason): `make demo` and `make bench` install only
# theirs, the test targets everything the tests use.
.PHONY: deps-demo deps-bench
# One unit binary of this flavour, built; prints its path (t0300 runs
# test_engine_nfs against a real NFS server with exactly these flags).
unit-bin-%:
	@$(MAKE) --no-print-directory $(BUILD)/tests/$* >&2 && echo $(BUILD)/tests/$*

deps:
	@scripts/install-deps.sh test
deps-demo:
	@scripts/install-deps.sh demo
deps-bench:
	@scripts/install-deps.sh bench

# faultfs (tests/faultfs/): the faulty FUSE file system the verification
# tests run over (docs/verify.md); a test tool, never installed.  As bin/,
# build/faultfs is the flavour built last.
.PHONY: faultfs
faultfs: $(BUILD)/tests/faultfs
	@install -m 0755 $< build/faultfs
$(BUILD)/tests/faultfs: tests/faultfs/faultfs.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(shell pkg-config --cflags fuse3) $(LDFLAGS) -o $@ $< $(shell pkg-config --libs fuse3)

# The sub-makes of unit/integration/test build in parallel (JOBS, default
# every CPU): `make test` is run without -j by CI and the README.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

unit: deps
	@$(MAKE) --no-print-directory -j$(JOBS) $(UNIT_BINS)
	@scripts/run-unit.sh $(UNIT_BINS)

# Targets that install dependencies build in a sub-make: the libnfs the
# build links (deps/libnfs, made by the install script) is chosen when the
# Makefile is read, so it must be read again after the install.
integration: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all faultfs replay
	@tests/integration/run.sh

# The README's test command: the comment check, unit tests, then
# integration tests on real processes.
test: deps
	@scripts/check-comments.py
	@$(MAKE) --no-print-directory -j$(JOBS) all faultfs replay $(UNIT_BINS)
	@scripts/run-unit.sh $(UNIT_BINS)
	@tests/integration/run.sh

# Comments stay next to, and true about, what they describe: none
# stranded above another, no dir/file.[ch] named that does not exist.
.PHONY: check-comments
check-comments:
	@scripts/check-comments.py

# Many consecutive runs with seeded faults (tests/soak/soak.py): minutes,
# not part of `make test`; then the integration tests of the soak tier
# (run.sh --soak: long, and covered in make test otherwise; docs/testing.md).
SOAK_RUNS ?= 200
soak: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all faultfs replay
	@python3 tests/soak/soak.py --runs $(SOAK_RUNS) $(if $(SOAK_SEED),--seed $(SOAK_SEED))
	@tests/integration/run.sh --soak

demo: deps-demo
	@$(MAKE) --no-print-directory all
	@scripts/demo.sh

bench: deps-bench
	@$(MAKE) --no-print-directory all
	@bench/posix-vs-fio.sh

# The agent under valgrind through normal, metadata, refused and hostile
# sessions: no errors, nothing definitely lost; then every fuzz corpus
# through its harness under valgrind (t1767: uninitialised reads, which
# ASan and UBSan do not see).
valgrind: deps
	@$(MAKE) --no-print-directory all replay
	@tests/integration/run.sh t0710
	@tests/integration/run.sh t1767

# The fuzz harnesses as plain programs (tests/fuzz/replay.c): built by cc
# without sanitizers, so valgrind can run each corpus through them.
REPLAY_NAMES := frame_msg plan journal run session
REPLAY_BINS  := $(patsubst %,$(BUILD)/tests/replay_%,$(REPLAY_NAMES))
.PHONY: replay
replay: $(REPLAY_BINS)
# (kept: make would delete them as intermediates and rebuild each time)
.SECONDARY: $(patsubst %,$(BUILD)/tests/fuzz/fuzz_%.o,$(REPLAY_NAMES)) $(BUILD)/tests/fuzz/replay.o
$(BUILD)/tests/replay_%: $(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/fuzz/replay.o $(LIBAGENT) $(LIBCOORD) $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# ---- fuzzing: libFuzzer harnesses in tests/fuzz/ (docs/security.md) ----
# Everything is rebuilt with clang, coverage-instrumented and sanitized, into
# build/fuzz/.  `make fuzz-smoke` replays each corpus and mutates for a fixed
# number of runs with a fixed seed: deterministic, a few seconds each.
FUZZ_CC      ?= clang
FUZZ_DIR     := build/fuzz
FUZZ_NAMES   := frame_msg plan journal run session
FUZZ_BINS    := $(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZ_NAMES))
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS  := $(filter-out -Wno-format-truncation -fsanitize=%,$(CFLAGS)) -O1 \
                -fsanitize=fuzzer-no-link $(FUZZ_SAN)
FUZZ_SRC     := $(COMMON_SRC) $(COORD_SRC)
FUZZ_RUNS    ?= 20000

$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<
$(FUZZ_DIR)/libfuzztarget.a: $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(FUZZ_SRC))
	@rm -f $@; ar rcs $@ $^
$(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/obj/tests/fuzz/fuzz_%.o $(FUZZ_DIR)/libfuzztarget.a
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(LDLIBS)

# The session harness drives the agent's own code: it links agent/ too.
$(FUZZ_DIR)/libfuzzagent.a: $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(AGENT_SRC))
	@rm -f $@; ar rcs $@ $^
$(FUZZ_DIR)/fuzz_session: $(FUZZ_DIR)/obj/tests/fuzz/fuzz_session.o $(FUZZ_DIR)/libfuzzagent.a \
                          $(FUZZ_DIR)/libfuzztarget.a
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(LDLIBS)

fuzz-build: $(FUZZ_BINS)

# Regenerate the seed corpora (committed; small): frames and a journal from
# the real encoders, plan seeds from examples/.
$(FUZZ_DIR)/gen_corpus: $(FUZZ_DIR)/obj/tests/fuzz/gen_corpus.o $(FUZZ_DIR)/libfuzztarget.a
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -o $@ $^ $(LDLIBS)
fuzz-corpus: $(FUZZ_DIR)/gen_corpus
	@mkdir -p tests/fuzz/corpus/frame_msg tests/fuzz/corpus/journal tests/fuzz/corpus/plan \
	   tests/fuzz/corpus/session
	$(FUZZ_DIR)/gen_corpus tests/fuzz/corpus
	@cp examples/seed-fio-4k-randread.fio examples/seed-matrix.fio examples/shared-dir.fio \
	   examples/small-files.fio tests/fuzz/corpus/plan/

# New inputs go to build/fuzz/work/<name> (first directory), never into the
# committed corpus; a crash leaves build/fuzz/<kind>-<sha1> and fails the
# target.  The journal harness is ~30x slower per input (each load builds a
# run_result of 400 KB op_sets), hence fewer runs.
FUZZ_RUNS_frame_msg ?= $(FUZZ_RUNS)
FUZZ_RUNS_plan      ?= $(FUZZ_RUNS)
FUZZ_RUNS_journal   ?= 2000
FUZZ_RUNS_run       ?= 1000
FUZZ_RUNS_session   ?= 2000
fuzz_smoke_one = rm -rf $(FUZZ_DIR)/work/$(1) && mkdir -p $(FUZZ_DIR)/work/$(1) && \
  { $(FUZZ_DIR)/fuzz_$(1) -runs=$(2) -seed=1 -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/ \
      $(FUZZ_DIR)/work/$(1) tests/fuzz/corpus/$(1) >$(FUZZ_DIR)/$(1).log 2>&1 || \
    { tail -n 40 $(FUZZ_DIR)/$(1).log; echo "fuzz-smoke: fuzz_$(1) FAILED (log: $(FUZZ_DIR)/$(1).log)"; false; }; } && \
  echo "fuzz-smoke: fuzz_$(1) ok ($$(grep -o 'number_of_executed_units: [0-9]*' $(FUZZ_DIR)/$(1).log | grep -o '[0-9]*$$') runs)"
fuzz-smoke: fuzz-build
	@$(foreach h,$(FUZZ_NAMES),$(call fuzz_smoke_one,$(h),$(FUZZ_RUNS_$(h))) && ) true

# `make fuzz`: each harness for FUZZ_SECONDS (default 60) over its corpus.
FUZZ_SECONDS ?= 60
fuzz: fuzz-build
	@$(foreach h,$(FUZZ_NAMES),mkdir -p $(FUZZ_DIR)/work/$(h) && \
	  $(FUZZ_DIR)/fuzz_$(h) -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=3072 \
	    -print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/ $(FUZZ_DIR)/work/$(h) tests/fuzz/corpus/$(h) \
	    >$(FUZZ_DIR)/$(h).long.log 2>&1 && \
	  echo "fuzz: fuzz_$(h) ok for $(FUZZ_SECONDS) s ($$(grep -o 'number_of_executed_units: [0-9]*' \
	    $(FUZZ_DIR)/$(h).long.log | grep -o '[0-9]*$$') runs)" && ) true

# ---- install, deb (docs/fleet.md, "Packages") ----
# `make install` links the two binaries again with an install rpath: the
# libnfs the build uses from deps/ is copied to PREFIX/lib/nfstorm and the
# binaries find it there through $ORIGIN, so the installed tree also runs
# when copied elsewhere.  With the system's libnfs there is nothing to carry.
PREFIX   ?= /usr/local
DESTDIR  ?=
comma    := ,
INST_DIR := $(BUILD)/install
INST_LDLIBS := $(filter-out -Wl$(comma)-rpath$(comma)%,$(LDLIBS))
ifdef NFS_PREFIX
INST_LDLIBS += -Wl,-rpath,'$$ORIGIN/../lib/nfstorm'
endif
DEPLOY_FILES := $(shell find deploy -type f 2>/dev/null | sort)
DOC_FILES    := README.md $(wildcard docs/*.md)

.PHONY: install install-bins deb
# The binaries as installed (the package's build step: it leaves bin/ alone).
install-bins: $(INST_DIR)/nfstorm $(INST_DIR)/nfstorm-agent
$(INST_DIR)/nfstorm: $(call obj,coordinator/cli/main.c) $(LIBCOORD) $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(INST_LDLIBS)
$(INST_DIR)/nfstorm-agent: $(call obj,agent/main.c) $(LIBAGENT) $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(INST_LDLIBS)

install: install-bins
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/doc/nfstorm/examples \
	   $(DESTDIR)$(PREFIX)/share/nfstorm/deploy
	install -m 0755 $(INST_DIR)/nfstorm $(INST_DIR)/nfstorm-agent $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 $(DOC_FILES) $(DESTDIR)$(PREFIX)/share/doc/nfstorm/
	install -m 0644 $(filter-out examples/limits,$(wildcard examples/*)) $(DESTDIR)$(PREFIX)/share/doc/nfstorm/examples/
	install -d $(DESTDIR)$(PREFIX)/share/doc/nfstorm/examples/limits
	install -m 0644 $(wildcard examples/limits/*) $(DESTDIR)$(PREFIX)/share/doc/nfstorm/examples/limits/
	@set -e; for f in $(DEPLOY_FILES); do \
	  echo "install -D -m 0644 $$f $(DESTDIR)$(PREFIX)/share/nfstorm/$$f"; \
	  install -D -m 0644 "$$f" "$(DESTDIR)$(PREFIX)/share/nfstorm/$$f"; done
ifdef NFS_PREFIX
	install -d $(DESTDIR)$(PREFIX)/lib/nfstorm
	cp -P $(NFS_PREFIX)/lib/libnfs.so.* $(DESTDIR)$(PREFIX)/lib/nfstorm/
endif

# `make deb`: a binary package built by dpkg-buildpackage (debian/), reusing
# this tree's build (no pre-clean); the .deb lands in build/deb/.  It needs
# debian/control's Build-Depends (scripts/install-deps.sh installs them, or
# `apt-get build-dep ./`), which dpkg-buildpackage checks itself.
DEB_DIR  := $(CURDIR)/build/deb
DEB_JOBS ?= 2
deb:
	@command -v dh >/dev/null || { echo "make deb: debhelper is missing (scripts/install-deps.sh)" >&2; exit 2; }
	@rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)
	NFSTORM_DEB_DIR=$(DEB_DIR) dpkg-buildpackage -b -uc -us --no-pre-clean -j$(DEB_JOBS) \
	  --buildinfo-file=$(DEB_DIR)/nfstorm.buildinfo --buildinfo-option=-u$(DEB_DIR) \
	  --changes-file=$(DEB_DIR)/nfstorm.changes --changes-option=-u$(DEB_DIR)
	@ls $(DEB_DIR)/*.deb

clean:
	rm -rf build bin

-include $(shell find build -name '*.d' 2>/dev/null)
