# SPDX-License-Identifier: GPL-2.0
# bpfqdisc: BPF qdiscs, their loader and tools.
#
#   make            build everything into .output/ and bin/
#   make deps       install the toolchain and the test kernel (tools/setup)
#   make test       unit tests natively, kernel tests in the VM (or natively
#                   when this kernel runs BPF qdiscs)
#   make demo       bpf_fifo carrying traffic in the VM, with its stats
#   make V=1        show the commands

OUTPUT := .output
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

INCLUDES := -Iinclude -I$(OUTPUT) -I$(LIBBPF_DIR)/include
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Wno-unused-parameter -Werror -std=gnu11 $(INCLUDES)
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -mcpu=v3 \
	-fms-extensions -Wno-microsoft-anon-tag -Wall -Werror $(INCLUDES)
LDLIBS := $(LIBBPF_DIR)/lib/libbpf.a -lelf -lz -lm

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.bpf.o,$(BPF_SRCS))
SKELS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS))
LIB_SRCS := $(filter-out src/bpfqdisc.c,$(wildcard src/*.c))
LIB_OBJS := $(patsubst src/%.c,$(OUTPUT)/%.o,$(LIB_SRCS))
TEST_BPF_OBJS := $(patsubst selftests/bpf/%.bpf.c,$(OUTPUT)/%.bpf.o,$(wildcard selftests/bpf/*.bpf.c))
UNIT_TESTS := $(patsubst selftests/unit/%.c,$(BIN)/%,$(wildcard selftests/unit/test_*.c))
TEST_PROGS := $(patsubst selftests/progs/%.c,$(BIN)/%,$(wildcard selftests/progs/*.c))

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DELETE_ON_ERROR:
.PHONY: all deps test unit demo clean check-deps

all: $(BIN)/bpfqdisc $(UNIT_TESTS) $(TEST_PROGS) $(TEST_BPF_OBJS)

deps:
	tools/setup

check-deps:
	@test -n "$(CLANG)" || { echo "clang-19 not found: run 'make deps'" >&2; exit 1; }
	@test -n "$(BPFTOOL)" || { echo "bpftool not found: run 'make deps'" >&2; exit 1; }
	@test -e $(LIBBPF_DIR)/lib/libbpf.a || { echo "$(LIBBPF_DIR) missing: run 'make deps'" >&2; exit 1; }
	@test -e $(VMLINUX_BTF) || { echo "$(VMLINUX_BTF) missing: run 'make deps' (or set VMLINUX_BTF)" >&2; exit 1; }

$(OUTPUT) $(BIN):
	$(Q)mkdir -p $@

$(OUTPUT)/vmlinux.h: $(VMLINUX_BTF) | $(OUTPUT) check-deps
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file $< format c > $@

$(OUTPUT)/%.bpf.o: bpf/%.bpf.c include/bpfqdisc.bpf.h include/bpfqdisc.h $(OUTPUT)/vmlinux.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@.tmp
	$(Q)$(BPFTOOL) gen object $@ $@.tmp && rm -f $@.tmp

$(OUTPUT)/%.bpf.o: selftests/bpf/%.bpf.c $(OUTPUT)/vmlinux.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $* > $@

$(OUTPUT)/skels.h: $(SKELS)
	$(call msg,GEN,$@)
	$(Q)printf '#include "%s"\n' $(notdir $^) > $@

$(OUTPUT)/%.o: src/%.c $(wildcard src/*.h) include/bpfqdisc.h src/qdiscs.def $(OUTPUT)/skels.h | $(OUTPUT) check-deps
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Isrc -c $< -o $@

$(BIN)/bpfqdisc: $(OUTPUT)/bpfqdisc.o $(LIB_OBJS) | $(BIN)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

$(BIN)/test_%: selftests/unit/test_%.c $(LIB_OBJS) | $(BIN)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -Isrc $^ $(LDLIBS) -o $@

$(BIN)/%: selftests/progs/%.c | $(BIN)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -o $@

test: all
	selftests/run

unit: all
	selftests/run --unit

demo: all
	tools/vmtest -- tools/demo

clean:
	$(call msg,CLEAN,)
	$(Q)rm -rf $(OUTPUT) $(BIN)
