# nfstorm: coordinator (bin/nfstorm) and agent (bin/nfstorm-agent).
# common/ and proto/ go into one static library both binaries link;
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
LDLIBS    := $(shell pkg-config --libs $(PKGS)) -lm -pthread

# libnfs: a project-local 5.x build (deps/) when the install script made one,
# else the system's; linked with an rpath so bin/ runs without LD_LIBRARY_PATH.
ifneq ($(wildcard deps/libnfs/lib/pkgconfig/libnfs.pc),)
NFS_PREFIX := $(CURDIR)/deps/libnfs
CFLAGS     += -I$(NFS_PREFIX)/include
LDLIBS     += -L$(NFS_PREFIX)/lib -Wl,-rpath,$(NFS_PREFIX)/lib -lnfs
else
CFLAGS     += $(shell pkg-config --cflags libnfs)
LDLIBS     += $(shell pkg-config --libs libnfs)
endif
# The engine's object must be rebuilt when deps/libnfs appears after it was
# compiled against the system headers (its .d names only those, and it
# checks the libnfs version at compile time).
build/rel/agent/engine_nfs.o build/san/agent/engine_nfs.o: $(wildcard deps/libnfs/lib/pkgconfig/libnfs.pc)

ifeq ($(SANITIZE),1)
BUILD   := build/san
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
else
BUILD   := build/rel
endif

COMMON_SRC := $(wildcard common/*.c) $(wildcard proto/*.c)
AGENT_SRC  := $(filter-out agent/main.c,$(wildcard agent/*.c))
COORD_SRC  := $(filter-out coordinator/main.c,$(wildcard coordinator/*.c))
UNIT_SRC   := $(wildcard tests/unit/test_*.c)

obj = $(patsubst %.c,$(BUILD)/%.o,$(1))
LIBCOMMON := $(BUILD)/libcommon.a
LIBAGENT  := $(BUILD)/libagent.a
LIBCOORD  := $(BUILD)/libcoord.a
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))

.PHONY: all deps test unit integration demo clean bench bin/nfstorm bin/nfstorm-agent
all: bin/nfstorm bin/nfstorm-agent

# bin/ always holds the binaries of the last flavour built.
bin/nfstorm: $(BUILD)/nfstorm
	@mkdir -p bin && install -m 0755 $< $@
bin/nfstorm-agent: $(BUILD)/nfstorm-agent
	@mkdir -p bin && install -m 0755 $< $@

$(BUILD)/nfstorm: $(call obj,coordinator/main.c) $(LIBCOORD) $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/nfstorm-agent: $(call obj,agent/main.c) $(LIBAGENT) $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(LIBCOMMON): $(call obj,$(COMMON_SRC))
	@rm -f $@; ar rcs $@ $^
$(LIBAGENT): $(call obj,$(AGENT_SRC))
	@rm -f $@; ar rcs $@ $^
$(LIBCOORD): $(call obj,$(COORD_SRC))
	@rm -f $@; ar rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(LIBAGENT) $(LIBCOORD) $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

deps:
	@scripts/install-deps.sh

unit: deps
	@$(MAKE) --no-print-directory $(UNIT_BINS)
	@scripts/run-unit.sh $(UNIT_BINS)

integration: deps all
	@tests/integration/run.sh

# The README's test command: unit tests, then integration tests on real processes.
test: deps
	@$(MAKE) --no-print-directory all $(UNIT_BINS)
	@scripts/run-unit.sh $(UNIT_BINS)
	@tests/integration/run.sh

demo: deps all
	@scripts/demo.sh

bench: deps all
	@bench/posix-vs-fio.sh

clean:
	rm -rf build bin

-include $(shell find build -name '*.d' 2>/dev/null)
