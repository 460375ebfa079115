# SPDX-License-Identifier: GPL-2.0
# bpfqdisc: BPF qdiscs, their loader and tools.
#
#   make            build everything into .output/ and bin/
#   make deps       install the toolchain and the test kernel (tools/setup)
#   make test       unit tests natively, kernel tests in the VM (or natively
#                   when this kernel runs BPF qdiscs)
#   make demo       bpf_fifo carrying traffic in the VM, with its stats
#   make stress     the long runs: long leak and churn tests on each kernel
#                   of STRESS_KERNELS too, fuzzers 10 minutes each beside
#   make bench      benchmarks in the VM -> docs/benchmarks.md (BENCH=quick|full,
#                   SECTIONS=cni: one section, the other tables kept)
#   make install    PREFIX=/usr/local DESTDIR= (docs/install.md)
#   make deb        bpfqdisc_VERSION_amd64.deb and bpfqdisc-dev_... in .output/
#   make V=1        show the commands
#   make -j1        one job at a time (the default is one per CPU)

# One job per CPU unless the command line gives -j (a full build: 20 s one
# job at a time on 2 CPUs, 10 s in parallel), or asks for clean, which
# make clean all would otherwise run beside the build.
ifeq ($(filter -j%,$(MAKEFLAGS))$(filter clean,$(MAKECMDGOALS)),)
MAKEFLAGS += -j$(shell nproc)
endif

OUTPUT := .output
comma := ,
BIN := bin
CACHE := .cache
KERNEL_DIR ?= $(CACHE)/kernel/default
# BTF that vmlinux.h is made from: the test kernel's, never the host's,
# unless asked (make VMLINUX_BTF=/sys/kernel/btf/vmlinux).
VMLINUX_BTF ?= $(KERNEL_DIR)/vmlinux
LIBBPF_DIR ?= $(CACHE)/libbpf

CLANG ?= $(firstword $(shell command -v clang-19 clang 2>/dev/null))
BPFTOOL ?= $(firstword $(shell command -v bpftool /usr/sbin/bpftool 2>/dev/null))
CC ?= cc

# bpfqdisc's version (bpfqdisc --version, the Debian packages), and the
# framework's (include/bpfqdisc.h: what objects record, bpfqdisc.pc's).
VERSION := 0.1.0
FW_VERSION := $(shell sed -n 's/^\#define BQ_FRAMEWORK_M[AJORIN]*[[:space:]]*\([0-9]*\)$$/\1/p' \
	include/bpfqdisc.h | paste -sd.)

INCLUDES := -Iinclude -I$(OUTPUT) -I$(LIBBPF_DIR)/include
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Wno-unused-parameter -Werror -std=gnu11 $(INCLUDES)
# What the framework's headers need of clang beyond -target bpf: the
# installed bpfqdisc.pc gives them too. vmlinux.h's anonymous members
# need -fms-extensions (without it they vanish, and the structs with them).
BQ_BPF_FLAGS := -D__TARGET_ARCH_x86 -mcpu=v3 -fms-extensions
BPF_CFLAGS := -g -O2 -target bpf $(BQ_BPF_FLAGS) -Wno-microsoft-anon-tag -Wall -Werror $(INCLUDES)
LDLIBS := $(LIBBPF_DIR)/lib/libbpf.a -lelf -lz -lm

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.bpf.o,$(BPF_SRCS))
SKELS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS))
# libbpfqdisc (src/lib/): position-independent, its symbols hidden but
# the public API's (include/libbpfqdisc.h), in .a and .so. The front ends
# (src/cli/, src/tc/, src/hbm/) link it.
LIB_SRCS := $(wildcard src/lib/*.c)
LIB_OBJS := $(patsubst src/lib/%.c,$(OUTPUT)/lib/%.o,$(LIB_SRCS))
LIB_A := $(OUTPUT)/libbpfqdisc.a
CLI_SRCS := $(wildcard src/cli/*.c)
CLI_OBJS := $(patsubst src/cli/%.c,$(OUTPUT)/cli/%.o,$(CLI_SRCS))
TEST_BPF_OBJS := $(patsubst selftests/bpf/%.bpf.c,$(OUTPUT)/%.bpf.o,\
	$(filter-out selftests/bpf/store_probe.bpf.c,$(wildcard selftests/bpf/*.bpf.c)))
# The storage candidates of selftests/bpf/store_probe.bpf.c, an object each.
TEST_BPF_OBJS += $(patsubst %,$(OUTPUT)/store_probe%.bpf.o,1 2 3 4 5)
# A faster slow receiver (test_fq_codel_sojourn): spin_loops 5000.
TEST_BPF_OBJS += $(OUTPUT)/slow_rx5000.bpf.o
UNIT_TESTS := $(patsubst selftests/unit/%.c,$(BIN)/%,$(wildcard selftests/unit/test_*.c))
FUZZERS := $(patsubst selftests/fuzz/%.c,$(BIN)/%,$(wildcard selftests/fuzz/fuzz_*.c))
TEST_PROGS := $(patsubst selftests/progs/%.c,$(BIN)/%,$(wildcard selftests/progs/*.c))

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DELETE_ON_ERROR:
.PHONY: all deps test unit stress demo bench clean check-deps

all: $(BIN)/bpfqdisc $(BIN)/bpfqdisc_test $(UNIT_TESTS) $(TEST_PROGS) $(TEST_BPF_OBJS) $(FUZZERS)

# The kernel matrix: make stress runs the kernel tests on the default test
# kernel (.cache/kernel/default) and on each of these Debian kernels, which
# make deps fetches as well (tools/setup --kernel VER).
STRESS_KERNELS ?= 7.2.13+deb14

# sudo make deps KERNEL=VER: make puts its command line's variables in the
# environment of tools/setup, where sudo would drop KERNEL=VER make deps's.
deps:
	tools/setup $(addprefix --kernel ,$(STRESS_KERNELS))

check-deps:
	@test -n "$(CLANG)" || { echo "clang-19 not found: run 'make deps'" >&2; exit 1; }
	@test -n "$(BPFTOOL)" || { echo "bpftool not found: run 'make deps'" >&2; exit 1; }
	@test -e $(LIBBPF_DIR)/lib/libbpf.a || { echo "$(LIBBPF_DIR) missing: run 'make deps'" >&2; exit 1; }
	@grep -qx pic $(LIBBPF_DIR)/.complete 2>/dev/null || { echo "$(LIBBPF_DIR) is not position-independent: run 'make deps'" >&2; exit 1; }
	@test -e $(VMLINUX_BTF) || { echo "$(VMLINUX_BTF) missing: run 'make deps' (or set VMLINUX_BTF)" >&2; exit 1; }

$(OUTPUT) $(BIN):
	$(Q)mkdir -p $@

# A missing BTF is check-deps' to report (run 'make deps'), not make's (no
# rule to make it): a prerequisite only once it exists.
$(OUTPUT)/vmlinux.h: $(wildcard $(VMLINUX_BTF)) | $(OUTPUT) check-deps
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@

$(OUTPUT)/%.bpf.o: bpf/%.bpf.c $(wildcard include/bq/*.bpf.h) $(wildcard bpf/*.bpf.h) include/pod_subnets.h include/bpfqdisc.h $(OUTPUT)/vmlinux.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@.tmp
	$(Q)$(BPFTOOL) gen object $@ $@.tmp && rm -f $@.tmp

$(OUTPUT)/%.bpf.o: selftests/bpf/%.bpf.c $(wildcard include/bq/*.bpf.h) include/bpfqdisc.h $(OUTPUT)/vmlinux.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# The plain FIFO's variants, which the loader refuses, include it.
$(patsubst %,$(OUTPUT)/plain_%.bpf.o,badid builtin noid otherbtf twoops): selftests/bpf/plain_fifo.bpf.c

$(OUTPUT)/store_probe%.bpf.o: selftests/bpf/store_probe.bpf.c $(wildcard include/bq/*.bpf.h) include/bpfqdisc.h $(OUTPUT)/vmlinux.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DSTORE=$* -c $< -o $@

# slow_rx with another spin_loops default, which ip's xdpdrv obj cannot set.
$(OUTPUT)/slow_rx%.bpf.o: selftests/bpf/slow_rx.bpf.c $(OUTPUT)/vmlinux.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DSPIN_LOOPS=$* -c $< -o $@

# Credit mode with another bucket or mark threshold (MTU), for
# tools/hbm-study: hbm_cg_credit1000.bpf.o, hbm_cg_mark160.bpf.o.
$(OUTPUT)/hbm_cg_credit%.bpf.o: bpf/hbm_cg.bpf.c bpf/hbm_cg.bpf.h bpf/hbm_edt.bpf.h include/hbm.h include/hbm_verdict.h $(OUTPUT)/vmlinux.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DHBM_CREDIT_MTU=$* -c $< -o $@
$(OUTPUT)/hbm_cg_mark%.bpf.o: bpf/hbm_cg.bpf.c bpf/hbm_cg.bpf.h bpf/hbm_edt.bpf.h include/hbm.h include/hbm_verdict.h $(OUTPUT)/vmlinux.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DHBM_MARK_MTU=$* -c $< -o $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $* > $@

$(OUTPUT)/skels.h: $(SKELS)
	$(call msg,GEN,$@)
	$(Q)printf '#include "%s"\n' $(notdir $^) > $@

LIB_CFLAGS := -fPIC -fvisibility=hidden -Isrc/lib
$(OUTPUT)/lib/%.o: src/lib/%.c $(wildcard src/lib/*.h) include/bpfqdisc.h include/libbpfqdisc.h src/lib/qdiscs.def $(OUTPUT)/skels.h | $(OUTPUT) check-deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LIB_CFLAGS) -c $< -o $@

$(LIB_A): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# The shared library exports the public API alone (BQ_API), and carries
# libbpf inside, hidden: a program with a libbpf of its own keeps it.
LIB_SONAME := libbpfqdisc.so.$(shell sed -n 's/^\#define LIBBPFQDISC_MAJOR[[:space:]]*\([0-9]*\).*/\1/p' include/libbpfqdisc.h)
LIB_SO := $(OUTPUT)/$(LIB_SONAME)
$(LIB_SO): $(LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -shared -Wl,-soname,$(LIB_SONAME) -Wl,--exclude-libs,ALL -Wl,-z,defs \
		$^ $(LDLIBS) -o $@
all: $(LIB_SO)

$(OUTPUT)/cli/%.o: src/cli/%.c src/cli/cli.h $(wildcard src/lib/*.h) include/bpfqdisc.h include/libbpfqdisc.h | $(OUTPUT) check-deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Isrc/lib -c $< -o $@

$(OUTPUT)/cli/main.o: CFLAGS += -DBQ_VERSION='"$(VERSION)"'

# bpfqdisc new writes bpf_fifo's source, or with --rank bpf_sp's, which it
# embeds as C strings.
$(OUTPUT)/fifo_src.h $(OUTPUT)/sp_src.h: $(OUTPUT)/%_src.h: bpf/%.bpf.c | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q){ echo 'static const char $*_src[] ='; \
	  sed 's/\\/\\\\/g; s/"/\\"/g; s/^/\t"/; s/$$/\\n"/' $<; echo ';'; } > $@
$(OUTPUT)/cli/new.o: $(OUTPUT)/fifo_src.h $(OUTPUT)/sp_src.h

$(BIN)/bpfqdisc: $(CLI_OBJS) $(LIB_A) | $(BIN)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

# The CLI of the kernel tests that load objects made to fail: the qdiscs of
# selftests/bpf/qdiscs.def (src/lib/qdiscs.def's and TEST_KINDS) in its registry.
TEST_KINDS := toobig maxlen rankmark
TEST_SKELS := $(patsubst %,$(OUTPUT)/%.skel.h,$(TEST_KINDS))
$(OUTPUT)/test_skels.h: $(OUTPUT)/skels.h $(TEST_SKELS)
	$(call msg,GEN,$@)
	$(Q)printf '#include "%s"\n' $(notdir $^) > $@

$(OUTPUT)/qdiscs_test.o: src/lib/qdiscs.c src/lib/lib.h src/lib/qdiscs.def selftests/bpf/qdiscs.def $(OUTPUT)/test_skels.h | check-deps
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(LIB_CFLAGS) -DBQ_QDISCS='"../selftests/bpf/qdiscs.def"' \
		-DBQ_SKELS='"test_skels.h"' -c $< -o $@

# The archive's own registry (qdiscs.o) is not pulled in: these define it.
$(BIN)/bpfqdisc_test: $(CLI_OBJS) $(OUTPUT)/qdiscs_test.o $(LIB_A) | $(BIN)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

# The CLI that must refuse objects built for other framework versions
# (selftests/bpf/qdiscs_fw.def): bpf_fifo with the next major, with the
# next minor, and with 2.1, the minor before user namespaces' bound per user.
FW_MAJOR := $(firstword $(subst ., ,$(FW_VERSION)))
FW_MINOR := $(lastword $(subst ., ,$(FW_VERSION)))
$(OUTPUT)/fwmajor.bpf.o: FW_OVERRIDE := -DBQ_FRAMEWORK_MAJOR=$(shell expr $(FW_MAJOR) + 1)
$(OUTPUT)/fwminor.bpf.o: FW_OVERRIDE := -DBQ_FRAMEWORK_MINOR=$(shell expr $(FW_MINOR) + 1)
$(OUTPUT)/fw21.bpf.o: FW_OVERRIDE := -DBQ_FRAMEWORK_MINOR=1
$(OUTPUT)/fwmajor.bpf.o $(OUTPUT)/fwminor.bpf.o $(OUTPUT)/fw21.bpf.o: bpf/fifo.bpf.c $(wildcard include/bq/*.bpf.h) \
		include/bpfqdisc.h $(OUTPUT)/vmlinux.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(FW_OVERRIDE) -c $< -o $@
$(OUTPUT)/fw_skels.h: $(OUTPUT)/fwmajor.skel.h $(OUTPUT)/fwminor.skel.h $(OUTPUT)/fw21.skel.h
	$(call msg,GEN,$@)
	$(Q)printf '#include "%s"\n' $(notdir $^) > $@
$(OUTPUT)/qdiscs_fwtest.o: src/lib/qdiscs.c src/lib/lib.h selftests/bpf/qdiscs_fw.def $(OUTPUT)/fw_skels.h | check-deps
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(LIB_CFLAGS) -DBQ_QDISCS='"../selftests/bpf/qdiscs_fw.def"' \
		-DBQ_SKELS='"fw_skels.h"' -c $< -o $@
$(BIN)/bpfqdisc_fwtest: $(CLI_OBJS) $(OUTPUT)/qdiscs_fwtest.o $(LIB_A) | $(BIN)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@
all: $(BIN)/bpfqdisc_fwtest

$(BIN)/test_%: selftests/unit/test_%.c $(LIB_A) | $(BIN)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -Isrc/lib $(filter-out %.h %.a,$^) $(filter %.a,$^) $(LDLIBS) -o $@

$(BIN)/%: selftests/progs/%.c | $(BIN)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -o $@
$(BIN)/fqsend $(BIN)/podabuse: selftests/progs/txtime.h

# Raw RTM_NEWQDISC through bpfqdisc's own netlink code.
$(BIN)/nlqdisc: selftests/progs/nlqdisc.c $(LIB_A) | $(BIN)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Isrc/lib $^ $(LDLIBS) -o $@

# The one test program that loads BPF objects itself.
$(BIN)/bq_mustfail: selftests/progs/bq_mustfail.c | $(BIN) check-deps
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< $(LDLIBS) -o $@

# libFuzzer harnesses over the parsers, with ASan and UBSan: over the
# library built again with them (its own archive).
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Wall -Werror \
	$(INCLUDES) -Isrc/lib
FUZZ_LIB_A := $(OUTPUT)/fuzz/libbpfqdisc.a
$(OUTPUT)/fuzz/%.o: src/lib/%.c $(wildcard src/lib/*.h) include/bpfqdisc.h src/lib/qdiscs.def $(OUTPUT)/skels.h | check-deps
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(subst fuzzer$(comma),fuzzer-no-link$(comma),$(FUZZ_FLAGS)) $(filter -D%,$(CFLAGS)) -c $< -o $@
$(FUZZ_LIB_A): $(patsubst src/lib/%.c,$(OUTPUT)/fuzz/%.o,$(LIB_SRCS))
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^
$(BIN)/fuzz_%: selftests/fuzz/fuzz_%.c selftests/fuzz/fuzz_words.h $(FUZZ_LIB_A) | $(BIN) check-deps
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_FLAGS) $< $(FUZZ_LIB_A) $(LDLIBS) -o $@

test: all
	selftests/run

unit: all
	selftests/run --unit

# Long runs (docs/reliability.md): the kernel tests with the long versions of
# the leak and churn tests on each kernel of the matrix, while the fuzzers
# run for 10 minutes each beside them at nice 19 (CFS gives the VM at nice 0
# the CPUs it wants; in series the 4 fuzzers alone would add 40 minutes).
# Fails if any run failed or a kernel is missing.
STRESS_ENV := BPFQDISC_REPLACES=1000 BPFQDISC_CHURN_SECS=60 BPFQDISC_TEST_TIMEOUT=900 \
	VMTEST_TIMEOUT=5400
stress: all
	@rc=0; \
	FUZZ_SECONDS=600 nice -n 19 selftests/run --unit fuzz >$(OUTPUT)/stress-fuzz.log 2>&1 & fuzz=$$!; \
	for k in default $(STRESS_KERNELS); do \
		if [ ! -e $(CACHE)/kernel/$$k/vmlinuz ]; then \
			echo "FAIL kernel $$k: not in $(CACHE)/kernel (run make deps)"; rc=1; continue; \
		fi; \
		VMTEST_KERNEL=$(CACHE)/kernel/$$k $(STRESS_ENV) selftests/run --kernel || rc=1; \
	done; \
	wait $$fuzz || rc=1; cat $(OUTPUT)/stress-fuzz.log; exit $$rc

demo: all
	tools/vmtest -- tools/demo

# Not part of test: two VM boots side by side on the virtual clock
# (docs/testing.md); quick takes about 10 minutes, full about 70.
BENCH ?= quick
# SECTIONS: only these sections of tools/bench, their tables merged into
# docs/benchmarks.md (`make bench SECTIONS=cni`: the CNI plugins alone;
# SECTIONS=memory: the kernel memory of the kinds beside the kernel qdiscs).
SECTIONS ?=
bench: all
	tools/bench $(BENCH) $(if $(SECTIONS),--merge $(SECTIONS))

clean:
	$(call msg,CLEAN,)
	$(Q)rm -rf $(OUTPUT) $(BIN)

# tc's plugin (src/tc/q_bpf.c): one library with a link q_bpf_KIND.so per
# kind, which tc finds in TC_LIB_DIR=bin/tc. It runs inside tc, which has a
# libbpf of its own: of the library it takes only parts that use none, and
# a link that leaves a libbpf symbol undefined (tc's would serve it) fails.
# Its archive is the library's but for tcplugin.o, which embeds the
# template below.
KINDS := $(shell grep ^BQ_QDISC src/lib/qdiscs.def | cut -d, -f1 | cut -c10-)
TC_PLUGIN_LINKS := $(patsubst %,$(BIN)/tc/q_bpf_%.so,$(KINDS))
TC_LIB_A := $(OUTPUT)/tc/libbpfqdisc-tc.a
all: $(TC_PLUGIN_LINKS)
$(TC_LIB_A): $(filter-out %/tcplugin.o,$(LIB_OBJS))
	$(call msg,AR,$@)
	$(Q)mkdir -p $(@D) && rm -f $@ && $(AR) rcs $@ $^
$(OUTPUT)/tc/q_bpf.o: src/tc/q_bpf.c $(wildcard src/lib/*.h) include/bpfqdisc.h src/lib/qdiscs.def | check-deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LIB_CFLAGS) -c $< -o $@
$(OUTPUT)/tc/q_bpf_template.o: src/tc/q_bpf.c $(wildcard src/lib/*.h) include/bpfqdisc.h | check-deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LIB_CFLAGS) -DBQ_TC_TEMPLATE -c $< -o $@
$(OUTPUT)/tc/qdiscs_none.o: src/lib/qdiscs.c src/lib/lib.h | check-deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LIB_CFLAGS) -DBQ_QDISCS='"/dev/null"' -DBQ_SKELS='"/dev/null"' -c $< -o $@
# Nor does it run anything: no exec, fork or spawn in it.
TC_PLUGIN_BANNED := (bpf|btf|libbpf|ring_buffer|perf_buffer|user_ring_buffer)_|exec|fork|vfork|posix_spawn|system@|popen
tc_plugin_link = $(CC) $(CFLAGS) -shared -Wl,--exclude-libs,ALL $(1) $(filter %.o %.a,$^) -lm -o $@.tmp && \
	if nm -D -u $@.tmp | grep -E ' U ($(TC_PLUGIN_BANNED))'; then \
		echo "$@ must not use these inside tc" >&2; rm -f $@.tmp; exit 1; fi && mv $@.tmp $@
$(BIN)/tc/q_bpf.so: $(OUTPUT)/tc/q_bpf.o $(TC_LIB_A) | check-deps
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(BIN)/tc
	$(Q)$(call tc_plugin_link,)
$(TC_PLUGIN_LINKS): $(BIN)/tc/q_bpf.so
	$(Q)ln -sf q_bpf.so $@
# The template of the plugins bpfqdisc load PATH writes for kinds from
# files (src/lib/tcplugin.c, which embeds it): no built-in kind, one exported
# placeholder, and a System V symbol hash (DT_HASH, which glibc's dlopen
# takes alone), which is simple to rebuild for the new name.
$(OUTPUT)/tc_template.so: $(OUTPUT)/tc/q_bpf_template.o $(OUTPUT)/tc/qdiscs_none.o $(TC_LIB_A) | $(OUTPUT) check-deps
	$(call msg,LINK,$@)
	$(Q)$(call tc_plugin_link,-Wl$(comma)--hash-style=sysv -s)
# Where Debian's tc looks for plugins (its LIBDIR/tc, and no other
# directory), whatever PREFIX bpfqdisc is installed under: make install
# puts the plugin there, and load PATH writes its plugins there unless
# TC_LIB_DIR says otherwise.
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
TC_DEBIAN_LIBDIR := /usr/lib/$(or $(MULTIARCH),x86_64-linux-gnu)/tc
$(OUTPUT)/lib/tcplugin.o $(OUTPUT)/fuzz/tcplugin.o: $(OUTPUT)/tc_template.so
$(OUTPUT)/lib/tcplugin.o $(OUTPUT)/fuzz/tcplugin.o: CFLAGS += -DBQ_TC_TEMPLATE_SO='"$(OUTPUT)/tc_template.so"' \
	-DBQ_TC_LIBDIR='"$(TC_DEBIAN_LIBDIR)"'

# make install [PREFIX=/usr/local] [DESTDIR=]: the CLI, the BPF objects of
# bpf/ (the CLI embeds them; these are for bpftool users), the man page, bash
# completion and the systemd template unit bpfqdisc@.service.
# The unit goes under $(PREFIX)/lib/systemd/system whatever the prefix:
# systemd searches both /usr/local/lib/systemd/system and
# /usr/lib/systemd/system (which on merged-/usr systems, Debian 12 on, is
# also /lib/systemd/system). Override with SYSTEMDUNITDIR=.
# make uninstall, with the same PREFIX and DESTDIR, removes exactly these.
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
BPFOBJDIR ?= $(PREFIX)/lib/bpfqdisc
MAN8DIR ?= $(PREFIX)/share/man/man8
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
INSTALL ?= install
INSTALLED := $(SBINDIR)/bpfqdisc $(patsubst $(OUTPUT)/%,$(BPFOBJDIR)/%,$(BPF_OBJS)) \
	$(MAN8DIR)/bpfqdisc.8 $(BASHCOMPDIR)/bpfqdisc $(SYSTEMDUNITDIR)/bpfqdisc@.service

.PHONY: install uninstall

install: $(BIN)/bpfqdisc $(BPF_OBJS)
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)$(INSTALL) -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BPFOBJDIR) $(DESTDIR)$(MAN8DIR) \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(SYSTEMDUNITDIR)
	$(Q)$(INSTALL) -m 0755 $(BIN)/bpfqdisc $(DESTDIR)$(SBINDIR)/bpfqdisc
	$(Q)$(INSTALL) -m 0644 $(BPF_OBJS) $(DESTDIR)$(BPFOBJDIR)/
	$(Q)$(INSTALL) -m 0644 docs/bpfqdisc.8 $(DESTDIR)$(MAN8DIR)/bpfqdisc.8
	$(Q)$(INSTALL) -m 0644 tools/bpfqdisc.bash-completion $(DESTDIR)$(BASHCOMPDIR)/bpfqdisc
# The unit must name the installed binary: systemd does not search PATH.
	$(Q)sed 's|@SBINDIR@|$(SBINDIR)|g' tools/bpfqdisc@.service > $(OUTPUT)/bpfqdisc@.service
	$(Q)$(INSTALL) -m 0644 $(OUTPUT)/bpfqdisc@.service $(DESTDIR)$(SYSTEMDUNITDIR)/bpfqdisc@.service

uninstall:
	$(call msg,UNINSTALL,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(addprefix $(DESTDIR),$(INSTALLED))
# Of the directories, only bpfqdisc's own goes, and only once it is empty.
	$(Q)if [ -d $(DESTDIR)$(BPFOBJDIR) ]; then rmdir --ignore-fail-on-non-empty $(DESTDIR)$(BPFOBJDIR); fi

# hbm, the Host Bandwidth Manager (issue 5): its own sources in src/hbm/,
# with the HBM objects embedded, and the library.
HBM_SRCS := $(wildcard src/hbm/*.c)
all: $(BIN)/hbm
$(OUTPUT)/hbm.bpf.o $(OUTPUT)/hbm_cg.bpf.o $(OUTPUT)/hbm_cg_edt.bpf.o: include/hbm.h bpf/hbm_cg.bpf.h bpf/hbm_edt.bpf.h include/hbm_verdict.h
$(BIN)/hbm: $(HBM_SRCS) $(LIB_A) src/hbm/hbm_tool.h include/hbm.h $(OUTPUT)/hbm_cg.skel.h $(OUTPUT)/hbm_cg_edt.skel.h | $(BIN) check-deps
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -DBQ_VERSION='"$(VERSION)"' -Isrc/lib -Isrc/hbm $(HBM_SRCS) $(LIB_A) $(LDLIBS) -o $@
# Harnesses that compile a CLI's source in (its parsers are static).
$(BIN)/fuzz_hbm: $(HBM_SRCS) src/hbm/hbm_tool.h include/hbm.h $(OUTPUT)/hbm_cg.skel.h $(OUTPUT)/hbm_cg_edt.skel.h
$(BIN)/fuzz_hbm: FUZZ_FLAGS += -DBQ_VERSION='"$(VERSION)"'
$(BIN)/fuzz_class: src/cli/class.c src/cli/common.c src/cli/print.c src/cli/cli.h
# make install puts hbm beside bpfqdisc (its BPF objects are in BPF_OBJS),
# with its man page.
INSTALLED += $(SBINDIR)/hbm $(MAN8DIR)/hbm.8
install: install-hbm
.PHONY: install-hbm
install-hbm: $(BIN)/hbm
	$(call msg,INSTALL,$(DESTDIR)$(SBINDIR)/hbm)
	$(Q)$(INSTALL) -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MAN8DIR)
	$(Q)$(INSTALL) -m 0755 $(BIN)/hbm $(DESTDIR)$(SBINDIR)/hbm
	$(Q)$(INSTALL) -m 0644 docs/hbm.8 $(DESTDIR)$(MAN8DIR)/hbm.8
# tc's plugin, a link per kind, where Debian's tc looks for it whatever
# PREFIX (so that tc finds bpf_fq after the default install; TCLIBDIR=
# overrides it, for another tc's LIBDIR/tc).
TCLIBDIR ?= $(TC_DEBIAN_LIBDIR)
INSTALLED += $(TCLIBDIR)/q_bpf.so $(patsubst $(BIN)/tc/%,$(TCLIBDIR)/%,$(TC_PLUGIN_LINKS))
install: install-tc
.PHONY: install-tc
install-tc: $(BIN)/tc/q_bpf.so
	$(call msg,INSTALL,$(DESTDIR)$(TCLIBDIR))
	$(Q)$(INSTALL) -d $(DESTDIR)$(TCLIBDIR)
	$(Q)$(INSTALL) -m 0644 $(BIN)/tc/q_bpf.so $(DESTDIR)$(TCLIBDIR)/q_bpf.so
	$(Q)for k in $(KINDS); do ln -sf q_bpf.so $(DESTDIR)$(TCLIBDIR)/q_bpf_$$k.so; done
# The CLI's print layer, tested natively (selftests/unit/test_print.c).
$(BIN)/test_print: src/cli/print.c src/cli/cli.h
# The framework parts tested natively (selftests/unit/test_parts.c).
$(BIN)/test_parts: include/bq/ids.bpf.h include/bq/list.bpf.h include/bq/keytab.bpf.h \
		   include/bq/timeq.bpf.h
# The arena tables, over a fake arena (selftests/unit/test_pages.c).
$(BIN)/test_pages: include/bq/pages.bpf.h
# The rank queue against the exact PIFO (tools/pifo/oracle.c), natively.
$(BIN)/test_rank: tools/pifo/oracle.c tools/pifo/oracle.h include/bq/rank.bpf.h include/bq/bits.bpf.h
# The rank tree's root against an exact two-level PIFO tree, natively.
$(BIN)/test_ranktree: include/bq/ranktree.bpf.h include/bq/rank.bpf.h include/bq/bits.bpf.h
# The exact PIFO's replay of a trace (tools/pifo/main.c).
$(BIN)/pifo-oracle: tools/pifo/main.c tools/pifo/oracle.c tools/pifo/oracle.h | $(BIN)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(filter %.c,$^) -o $@
all: $(BIN)/pifo-oracle

# The framework, for qdiscs built outside this tree (docs/writing-a-qdisc.md):
# its headers (the parts in include/bq/), the test kernel's vmlinux.h for
# x86-64 in include/bq/vmlinux/, where an earlier -I can override it, and
# bpfqdisc.pc (tools/bpfqdisc.pc.in), which finds them relative to itself.
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(PREFIX)/lib/pkgconfig
FW_HEADERS := include/bpfqdisc.h $(wildcard include/bq/*.bpf.h)
FW_INSTALLED := $(patsubst include/%,$(INCLUDEDIR)/%,$(FW_HEADERS)) \
	$(INCLUDEDIR)/bq/vmlinux/vmlinux.h $(PKGCONFIGDIR)/bpfqdisc.pc
INSTALLED += $(FW_INSTALLED)
.PHONY: install-dev uninstall-dev
install: install-dev
uninstall: uninstall-dev
install-dev: $(OUTPUT)/vmlinux.h
	$(call msg,INSTALL,$(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR)/bpfqdisc.pc)
	$(Q)$(INSTALL) -d $(DESTDIR)$(INCLUDEDIR)/bq/vmlinux $(DESTDIR)$(PKGCONFIGDIR)
	$(Q)$(INSTALL) -m 0644 include/bpfqdisc.h $(DESTDIR)$(INCLUDEDIR)/
	$(Q)$(INSTALL) -m 0644 $(filter include/bq/%,$(FW_HEADERS)) $(DESTDIR)$(INCLUDEDIR)/bq/
	$(Q)$(INSTALL) -m 0644 $(OUTPUT)/vmlinux.h $(DESTDIR)$(INCLUDEDIR)/bq/vmlinux/
	$(Q)sed -e 's|@INCLUDEDIR_FROM_PC@|$(shell realpath -m --relative-to=$(PKGCONFIGDIR) $(INCLUDEDIR))|' \
		-e 's|@FW_VERSION@|$(FW_VERSION)|' -e 's|@BQ_BPF_FLAGS@|$(BQ_BPF_FLAGS)|' \
		tools/bpfqdisc.pc.in > $(OUTPUT)/bpfqdisc.pc
	$(Q)$(INSTALL) -m 0644 $(OUTPUT)/bpfqdisc.pc $(DESTDIR)$(PKGCONFIGDIR)/bpfqdisc.pc
uninstall-dev:
	$(Q)rm -f $(addprefix $(DESTDIR),$(FW_INSTALLED))
	$(Q)for d in $(DESTDIR)$(INCLUDEDIR)/bq/vmlinux $(DESTDIR)$(INCLUDEDIR)/bq; do \
		if [ -d $$d ]; then rmdir --ignore-fail-on-non-empty $$d; fi; done

# libbpfqdisc: the shared library (the runtime, bpfqdisc's package), and
# for programs built against it (the -dev package) its header, the .so
# link, the archive, libbpfqdisc.pc and the man page libbpfqdisc(3).
LIBDIR ?= $(PREFIX)/lib/$(or $(MULTIARCH),x86_64-linux-gnu)
MAN3DIR ?= $(PREFIX)/share/man/man3
# Its .pc names an architecture's directory: in that architecture's own.
LIBPCDIR ?= $(LIBDIR)/pkgconfig
LIB_INSTALLED := $(LIBDIR)/$(LIB_SONAME) $(LIBDIR)/libbpfqdisc.so $(LIBDIR)/libbpfqdisc.a \
	$(INCLUDEDIR)/libbpfqdisc.h $(LIBPCDIR)/libbpfqdisc.pc $(MAN3DIR)/libbpfqdisc.3
INSTALLED += $(LIB_INSTALLED)
.PHONY: install-lib
install: install-lib
install-lib: $(LIB_SO) $(LIB_A)
	$(call msg,INSTALL,$(DESTDIR)$(LIBDIR)/$(LIB_SONAME))
	$(Q)$(INSTALL) -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBPCDIR) \
		$(DESTDIR)$(MAN3DIR)
	$(Q)$(INSTALL) -m 0644 $(LIB_SO) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME)
	$(Q)ln -sf $(LIB_SONAME) $(DESTDIR)$(LIBDIR)/libbpfqdisc.so
	$(Q)$(INSTALL) -m 0644 $(LIB_A) $(DESTDIR)$(LIBDIR)/libbpfqdisc.a
	$(Q)$(INSTALL) -m 0644 include/libbpfqdisc.h $(DESTDIR)$(INCLUDEDIR)/libbpfqdisc.h
	$(Q)$(INSTALL) -m 0644 docs/libbpfqdisc.3 $(DESTDIR)$(MAN3DIR)/libbpfqdisc.3
	$(Q)sed -e 's|@INCLUDEDIR_FROM_PC@|$(shell realpath -m --relative-to=$(LIBPCDIR) $(INCLUDEDIR))|' \
		-e 's|@LIBDIR_FROM_PC@|$(shell realpath -m --relative-to=$(LIBPCDIR) $(LIBDIR))|' \
		-e 's|@VERSION@|$(VERSION)|' tools/libbpfqdisc.pc.in > $(OUTPUT)/libbpfqdisc.pc
	$(Q)$(INSTALL) -m 0644 $(OUTPUT)/libbpfqdisc.pc $(DESTDIR)$(LIBPCDIR)/libbpfqdisc.pc

# make deb [DEB_DIR=.output]: bpfqdisc_$(VERSION)_amd64.deb and
# bpfqdisc-dev_..., of exactly what make install PREFIX=/usr installs
# (tools/mkdeb splits it: the framework to -dev, the rest to bpfqdisc).
# The install's own prerequisites are built first, in parallel.
DEB_DIR ?= $(OUTPUT)
.PHONY: deb
deb: $(BIN)/bpfqdisc $(BIN)/hbm $(BPF_OBJS) $(OUTPUT)/vmlinux.h $(LIB_SO) $(LIB_A)
	$(Q)rm -rf $(DEB_DIR)/deb
	$(Q)MAKEFLAGS= $(MAKE) -j1 --no-print-directory install DESTDIR=$(abspath $(DEB_DIR))/deb/root PREFIX=/usr
	$(call msg,DEB,$(DEB_DIR)/bpfqdisc_$(VERSION)_amd64.deb $(DEB_DIR)/bpfqdisc-dev_$(VERSION)_amd64.deb)
	$(Q)tools/mkdeb $(DEB_DIR)/deb $(VERSION) $(DEB_DIR) >/dev/null

# The out-of-tree qdiscs test_load_object loads (issue 28), built on the
# host as a user would build one: make install into a DESTDIR, bpfqdisc new
# in a directory outside the tree, clang with only the installed headers
# and pkg-config --cflags bpfqdisc. The test VM has no clang. fwnext is
# the same FIFO built for the next framework major, which load refuses.
# markq, a qdisc with classes (test_load_class), is built the same way
# from a copy of its source in that directory.
OOT := $(abspath $(OUTPUT))/oot
all: $(OOT)/myq.bpf.o $(OOT)/markq.bpf.o
$(OOT)/myq.bpf.o: $(BIN)/bpfqdisc $(BIN)/bpfqdisc-bandwidth $(BIN)/hbm $(BIN)/tc/q_bpf.so $(BPF_OBJS) $(OUTPUT)/vmlinux.h $(FW_HEADERS) \
		$(LIB_SO) $(LIB_A) tools/bpfqdisc.pc.in tools/libbpfqdisc.pc.in
	$(call msg,OOT,$@)
	$(Q)rm -rf $(OOT) && mkdir -p $(OOT)/work
	$(Q)MAKEFLAGS= $(MAKE) -j1 -s --no-print-directory install DESTDIR=$(OOT)/dest PREFIX=/usr >/dev/null
	$(Q)cd $(OOT)/work && ../dest/usr/sbin/bpfqdisc new myq >/dev/null && \
		../dest/usr/sbin/bpfqdisc new fwnext >/dev/null && \
		export PKG_CONFIG_PATH=$(OOT)/dest/usr/lib/pkgconfig && \
		$(CLANG) -target bpf -O2 -g $$(pkg-config --cflags bpfqdisc) \
			-DBQ_FRAMEWORK_MAJOR=$(shell expr $(FW_MAJOR) + 1) -c fwnext.bpf.c -o ../fwnext.bpf.o && \
		$(CLANG) -target bpf -O2 -g $$(pkg-config --cflags bpfqdisc) -c myq.bpf.c -o ../myq.bpf.o

# myq renamed, each with a name load must refuse (test_load_refuse): a kind
# named as a parameter, a statistic named as a core counter, one whose
# Prometheus name is a core metric's, one whose name fills its field.
OOT_CLASHES := limit dupstat qlen longstat
OOT_SED_limit := s/myq/limit/g
OOT_SED_dupstat := s/myq/dupstat/g; s/"qlen_max"/"dequeued"/
OOT_SED_qlen := s/myq/qlen/g; s/"qlen_max"/"packets"/
OOT_SED_longstat := s/myq/longstat/g; s/"qlen_max"/"abcdefghijklmnopqrstuvwx"/
all: $(patsubst %,$(OOT)/%.bpf.o,$(OOT_CLASHES))
$(patsubst %,$(OOT)/%.bpf.o,$(OOT_CLASHES)): $(OOT)/%.bpf.o: $(OOT)/myq.bpf.o
	$(call msg,OOT,$@)
	$(Q)cd $(OOT)/work && sed '$(OOT_SED_$*)' myq.bpf.c >$*.bpf.c && \
		export PKG_CONFIG_PATH=$(OOT)/dest/usr/lib/pkgconfig && \
		$(CLANG) -target bpf -O2 -g $$(pkg-config --cflags bpfqdisc) -c $*.bpf.c -o ../$*.bpf.o

# A program that drives bpfqdisc through libbpfqdisc (test_lib_client),
# built the same way: its source alone, copied out of the tree, against the
# installed header and library (pkg-config libbpfqdisc); it finds
# libbpfqdisc.so.0 in that install, relative to itself.
all: $(OOT)/bq_client
$(OOT)/bq_client: selftests/oot/bq_client.c $(OOT)/myq.bpf.o
	$(call msg,OOT,$@)
	$(Q)cp $< $(OOT)/work/ && cd $(OOT)/work && \
		export PKG_CONFIG_PATH=$(OOT)/dest/usr/lib/$(or $(MULTIARCH),x86_64-linux-gnu)/pkgconfig && \
		$(CC) -O2 -Wall -Wextra -Werror bq_client.c $$(pkg-config --cflags --libs libbpfqdisc) \
			-Wl,-rpath,'$$ORIGIN/dest/usr/lib/$(or $(MULTIARCH),x86_64-linux-gnu)' -o ../bq_client

$(OOT)/markq.bpf.o: selftests/oot/markq.bpf.c $(OOT)/myq.bpf.o
	$(call msg,OOT,$@)
	$(Q)cp $< $(OOT)/work/ && cd $(OOT)/work && \
		export PKG_CONFIG_PATH=$(OOT)/dest/usr/lib/pkgconfig && \
		$(CLANG) -target bpf -O2 -g $$(pkg-config --cflags bpfqdisc) -c markq.bpf.c -o ../markq.bpf.o

# The framework's promise, that a minor version never breaks a qdisc's
# source (docs/writing-a-qdisc.md, "What is stable"): a frozen copy of the
# sources of each released minor, selftests/oot/fwMAJOR.MINOR/, built here
# with today's installed headers as myq is, and loaded by
# test_load_frozen. Each minor has what bpfqdisc new wrote then; its
# qdisc with classes is fw2.0's markq (2.1's to 2.4's were the same).
# Never edit them: add the next minor's beside them.
OOT_FROZEN := $(patsubst selftests/oot/%.bpf.c,$(OOT)/%.bpf.o,$(wildcard selftests/oot/fw*/*.bpf.c))
all: $(OOT_FROZEN)
$(OOT_FROZEN): $(OOT)/%.bpf.o: selftests/oot/%.bpf.c $(OOT)/myq.bpf.o
	$(call msg,OOT,$@)
	$(Q)mkdir -p $(dir $@) $(dir $(OOT)/work/$*) && cp $< $(OOT)/work/$*.bpf.c && \
		cd $(dir $(OOT)/work/$*) && export PKG_CONFIG_PATH=$(OOT)/dest/usr/lib/pkgconfig && \
		$(CLANG) -target bpf -O2 -g $$(pkg-config --cflags bpfqdisc) -c $(notdir $*).bpf.c -o $@

# README's sudo make install, staged with its PREFIX (the default) for
# test_readme, which copies it onto the test VM's /. After the OOT
# install: two make installs at once would write the same generated files.
README_STAGE := $(abspath $(OUTPUT))/readme
all: $(README_STAGE)/root
$(README_STAGE)/root: $(BIN)/bpfqdisc $(BIN)/bpfqdisc-bandwidth $(BIN)/hbm $(BIN)/tc/q_bpf.so $(BPF_OBJS) $(OUTPUT)/vmlinux.h \
		$(LIB_SO) $(LIB_A) $(FW_HEADERS) tools/bpfqdisc.pc.in tools/libbpfqdisc.pc.in tools/bpfqdisc@.service \
		$(OOT)/myq.bpf.o
	$(call msg,STAGE,$@)
	$(Q)rm -rf $@ && MAKEFLAGS= $(MAKE) -j1 -s --no-print-directory install DESTDIR=$@ >/dev/null

# --- bpfqdisc-bandwidth: the chained CNI plugin for pods (issue 37) ---
# One block, kept together: src/cni/*.c linked with the library's archive
# (its internal API, src/lib/lib.h), its unit test and fuzzer, its install. docs/kubernetes.md.
# make install puts it where Debian's runtimes look for CNI plugins, the
# directory of Debian's containernetworking-plugins, whatever PREFIX:
# /usr/lib/cni. containerd's default bin_dir is /opt/cni/bin: CNIBINDIR=.
CNI_SRCS := $(wildcard src/cni/*.c)
CNI_OBJS := $(patsubst src/cni/%.c,$(OUTPUT)/cni/%.o,$(CNI_SRCS))
CNI_HDRS := $(wildcard src/cni/*.h)
CNIBINDIR ?= /usr/lib/cni
all: $(BIN)/bpfqdisc-bandwidth
$(OUTPUT)/cni/%.o: src/cni/%.c $(CNI_HDRS) $(wildcard src/lib/*.h) include/bpfqdisc.h include/libbpfqdisc.h \
		include/pod_police.h include/pod_subnets.h | $(OUTPUT) check-deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Isrc/lib -Isrc/cni -DBQ_VERSION='"$(VERSION)"' -c $< -o $@
$(BIN)/bpfqdisc-bandwidth: $(CNI_OBJS) $(LIB_A) | $(BIN)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@
$(OUTPUT)/cni/police_obj.o: $(OUTPUT)/pod_police.skel.h
# The unit test links the plugin's parts but its main.
$(BIN)/test_cni: selftests/unit/test_cni.c $(filter-out $(OUTPUT)/cni/main.o,$(CNI_OBJS)) $(LIB_A) | $(BIN)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -Isrc/lib -Isrc/cni $^ $(LDLIBS) -o $@
# The fuzzer: the config and the conflist edit, and the library's JSON
# reader and records (src/lib/cjson.c, podrec.c), with the sanitizers: the
# library from its archive built with them.
CNI_FUZZ_SRCS := src/cni/conf.c src/cni/conflist.c src/cni/result.c
$(BIN)/fuzz_cni: selftests/fuzz/fuzz_cni.c $(CNI_FUZZ_SRCS) $(CNI_HDRS) $(FUZZ_LIB_A) | $(BIN) check-deps
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_FLAGS) -Isrc/cni $< $(CNI_FUZZ_SRCS) $(FUZZ_LIB_A) $(LDLIBS) -o $@
INSTALLED += $(CNIBINDIR)/bpfqdisc-bandwidth
install: install-cni
.PHONY: install-cni
install-cni: $(BIN)/bpfqdisc-bandwidth
	$(call msg,INSTALL,$(DESTDIR)$(CNIBINDIR)/bpfqdisc-bandwidth)
	$(Q)$(INSTALL) -d $(DESTDIR)$(CNIBINDIR)
	$(Q)$(INSTALL) -m 0755 $(BIN)/bpfqdisc-bandwidth $(DESTDIR)$(CNIBINDIR)/bpfqdisc-bandwidth
# make deb's install runs one job at a time: build the plugin first, in parallel.
deb: $(BIN)/bpfqdisc-bandwidth

# make image [DEB_DIR=.output]: the DaemonSet's image (deploy/kubernetes/),
# bpfqdisc-image_$(VERSION).tar, an OCI archive named
# docker.io/bpfqdisc/bpfqdisc:$(VERSION) (tools/mkimage).
.PHONY: image
image: $(BIN)/bpfqdisc $(BIN)/bpfqdisc-bandwidth
	$(call msg,IMAGE,$(DEB_DIR)/bpfqdisc-image_$(VERSION).tar)
	$(Q)tools/mkimage $(DEB_DIR)/bpfqdisc-image_$(VERSION).tar $(VERSION)
