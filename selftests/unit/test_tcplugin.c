// SPDX-License-Identifier: GPL-2.0
/*
 * The tc plugin that bpfqdisc load PATH writes (src/lib/tcplugin.c): for kind
 * names of 1 and of 11 characters, dlopen finds <kind>_qdisc_util with
 * its id and not the placeholder, every dynamic symbol is still found
 * through the rebuilt System V hash, and the kind's object follows; a
 * directory others may write is refused; unload's removal works.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "lib.h"
#include "unit.h"

/* tc's struct qdisc_util (src/tc/q_bpf.c): the two fields read here. */
struct util_head {
	void *next;
	const char *id;
};

static char dir[] = "/tmp/bq_tcplugin.XXXXXX";

/* The file's bytes, malloc'd, *sz set. */
static unsigned char *slurp(const char *path, size_t *sz)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	unsigned char *b = NULL;

	if (fd >= 0 && !fstat(fd, &st) && (b = malloc(st.st_size)) &&
	    read(fd, b, st.st_size) != st.st_size) {
		free(b);
		b = NULL;
	}
	*sz = b ? st.st_size : 0;
	if (fd >= 0)
		close(fd);
	return b;
}

/* The section of type type, the first, in the ELF image b. */
static const Elf64_Shdr *find_type(const unsigned char *b, __u32 type)
{
	const Elf64_Ehdr *eh = (const void *)b;
	const Elf64_Shdr *sh = (const void *)(b + eh->e_shoff);

	for (int i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == type)
			return &sh[i];
	return NULL;
}

/* An oracle independent of elf.c: the ABI's hash, walked for every symbol. */
static unsigned long abi_hash(const unsigned char *name)
{
	unsigned long h = 0, g;

	while (*name) {
		h = (h << 4) + *name++;
		g = h & 0xf0000000;
		if (g)
			h ^= g >> 24;
		h &= ~g;
	}
	return h;
}

static int unreachable_symbols(const unsigned char *b)
{
	const Elf64_Shdr *symsh = find_type(b, SHT_DYNSYM), *hashsh = find_type(b, SHT_HASH);
	const Elf64_Shdr *strsh = (const Elf64_Shdr *)(b + ((const Elf64_Ehdr *)b)->e_shoff) +
				  symsh->sh_link;
	const Elf64_Sym *sym = (const void *)(b + symsh->sh_offset);
	const __u32 *h = (const void *)(b + hashsh->sh_offset), *chain = h + 2 + h[0];
	int lost = 0;

	for (__u32 i = 1; i < h[1]; i++) {
		const unsigned char *name = b + strsh->sh_offset + sym[i].st_name;
		__u32 j = h[2 + abi_hash(name) % h[0]];

		while (j && j != i)
			j = chain[j];
		lost += j != i;
	}
	return lost;
}

static void plugin_of(const char *name)
{
	char kind[BQ_KIND_LEN], path[256], sym[64];
	const struct bq_kind *k;
	struct bq_tc_plugin p;
	const struct bq_tc_trailer *t;
	struct util_head *u;
	unsigned char *b;
	size_t elf_sz, sz;
	const void *elf = bq_kind_elf(&bq_kinds[0], &elf_sz);
	void *h;

	k = bq_kinds_add(name, "/src/q.bpf.o", elf, elf_sz, false);
	EXPECT(k && !bq_tc_plugin_stage(k, &p) && !bq_tc_plugin_commit(&p, true), "bpf_%s", name);
	snprintf(kind, sizeof(kind), "bpf_%s", name);
	snprintf(path, sizeof(path), "%s/q_%s.so", dir, kind);
	h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
	EXPECT(h, "dlopen %s: %s", path, dlerror());
	if (!h)
		return;
	snprintf(sym, sizeof(sym), "%s_qdisc_util", kind);
	u = dlsym(h, sym);
	EXPECT(u && !strcmp(u->id, kind), "%s: id %s", sym, u ? u->id : "(none)");
	EXPECT(!dlsym(h, BQ_TC_PLACEHOLDER "_qdisc_util"), "the placeholder is still found");
	dlclose(h);
	b = slurp(path, &sz);
	EXPECT(b && !unreachable_symbols(b), "%d symbols not in the hash", b ? unreachable_symbols(b) : -1);
	t = b ? (const void *)(b + sz - sizeof(*t)) : NULL;
	EXPECT(t && !memcmp(t->magic, BQ_TC_MAGIC, 8) &&
	       t->size == sizeof(struct bq_object_hdr) + elf_sz &&
	       !strcmp((const char *)t - t->size, "/src/q.bpf.o") &&
	       !memcmp((const char *)t - elf_sz, elf, elf_sz), "the appended object");
	free(b);
	bq_tc_plugin_remove(k);
	EXPECT(access(path, F_OK), "%s stays after remove", path);
}

static void shortest_name(void)
{
	plugin_of("a");
}

static void longest_name(void)
{
	plugin_of("abcdefghijk");
}

static void rename_refused(void)
{
	size_t sz;
	unsigned char *b;
	char path[256];
	struct bq_tc_plugin p;
	const struct bq_kind *k = bq_kinds_add("r", "/src/q.bpf.o", "", 1, false);

	EXPECT(k && !bq_tc_plugin_stage(k, &p) && !bq_tc_plugin_commit(&p, true), "bpf_r");
	snprintf(path, sizeof(path), "%s/q_bpf_r.so", dir);
	b = slurp(path, &sz);
	EXPECT(b && bq_elf_rename_symbol(b, sz, "bpf_r_qdisc_util", "bpf_rr_qdisc_util"),
	       "a longer name was taken");
	EXPECT(b && bq_elf_rename_symbol(b, sz, "bpf_s_qdisc_util", "bpf_t_qdisc_util"),
	       "a missing symbol was renamed");
	EXPECT(b && bq_elf_rename_symbol(b + 1, sz - 1, "bpf_r_qdisc_util", "bpf_t_qdisc_util"),
	       "not an ELF, renamed");
	free(b);
	bq_tc_plugin_remove(k);
}

/* Others may write the directory: no file, nothing left behind. */
static void unsafe_dir(void)
{
	const struct bq_kind *k = bq_kinds_add("u", "/src/q.bpf.o", "", 1, false);
	struct bq_tc_plugin p;
	char path[256];

	chmod(dir, 0777);
	EXPECT(k && bq_tc_plugin_stage(k, &p), "a directory of mode 0777 was written into");
	chmod(dir, 0700);
	snprintf(path, sizeof(path), "%s/q_bpf_u.so", dir);
	EXPECT(access(path, F_OK) && !rmdir(dir), "left in %s", dir);
}

int main(void)
{
	unit_file = "tcplugin";
	if (!mkdtemp(dir) || setenv("TC_LIB_DIR", dir, 1))
		return 1;
	RUN(shortest_name);
	RUN(longest_name);
	RUN(rename_refused);
	RUN(unsafe_dir);
	return unit_failed;
}
