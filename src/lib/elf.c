// SPDX-License-Identifier: GPL-2.0
/*
 * The sections of an embedded BPF object, read without libbpf: the tc
 * plugin runs inside tc, which has a libbpf of its own loaded, so the
 * kinds' tables (.rodata.bq_params and the others) are read here by the
 * CLI and the plugin alike.
 */
#include <elf.h>
#include <string.h>
#include "lib.h"

/* Whether [off, off + len) lies inside an object of sz bytes. */
static bool inside(size_t sz, __u64 off, __u64 len)
{
	return off <= sz && len <= sz - off;
}

/* The header of section name in elf, if its bytes lie inside; NULL if none. */
static const Elf64_Shdr *section(const void *elf, size_t sz, const char *name)
{
	const unsigned char *b = elf;
	const Elf64_Ehdr *eh = elf;
	const Elf64_Shdr *sh, *strtab;

	if (sz < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(*sh) ||
	    !inside(sz, eh->e_shoff, (__u64)eh->e_shnum * sizeof(*sh)) ||
	    eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	sh = (const Elf64_Shdr *)(b + eh->e_shoff);
	strtab = &sh[eh->e_shstrndx];
	if (!inside(sz, strtab->sh_offset, strtab->sh_size))
		return NULL;
	for (size_t i = 0; i < eh->e_shnum; i++) {
		const char *s = (const char *)b + strtab->sh_offset + sh[i].sh_name;

		if (sh[i].sh_name >= strtab->sh_size ||
		    strnlen(s, strtab->sh_size - sh[i].sh_name) == strtab->sh_size - sh[i].sh_name ||
		    strcmp(s, name) || !inside(sz, sh[i].sh_offset, sh[i].sh_size))
			continue;
		return &sh[i];
	}
	return NULL;
}

const void *bq_elf_section(const void *elf, size_t sz, const char *name, size_t *len)
{
	const Elf64_Shdr *sh = section(elf, sz, name);

	if (!sh || sh->sh_type != SHT_PROGBITS)
		return NULL;
	*len = sh->sh_size;
	return (const unsigned char *)elf + sh->sh_offset;
}

/* The System V ABI's hash of a symbol's name (DT_HASH). */
static __u32 sysv_hash(const char *name)
{
	__u32 h = 0, top;

	for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
		h = (h << 4) + *c;
		top = h & 0xf0000000;
		h ^= top >> 24;
		h &= ~top;
	}
	return h;
}

/*
 * The dynamic symbols of a shared object linked with --hash-style=sysv:
 * .dynsym, its names in .dynstr and their .hash, checked to lie inside.
 */
struct dynsyms {
	Elf64_Sym *sym;
	size_t n;
	char *str;
	size_t str_len;
	__u32 *hash;	/* nbucket, nchain, buckets, chains */
};

static int dynsyms(void *elf, size_t sz, struct dynsyms *d)
{
	const Elf64_Shdr *sym = section(elf, sz, ".dynsym"), *str = section(elf, sz, ".dynstr"),
			 *hash = section(elf, sz, ".hash");
	unsigned char *b = elf;

	if (!sym || !str || !hash || sym->sh_type != SHT_DYNSYM || str->sh_type != SHT_STRTAB ||
	    hash->sh_type != SHT_HASH || sym->sh_entsize != sizeof(Elf64_Sym) ||
	    hash->sh_size < 2 * sizeof(__u32) || !str->sh_size)
		return -1;
	d->sym = (Elf64_Sym *)(b + sym->sh_offset);
	d->n = sym->sh_size / sizeof(Elf64_Sym);
	d->str = (char *)b + str->sh_offset;
	d->str_len = str->sh_size;
	d->hash = (__u32 *)(b + hash->sh_offset);
	if (d->hash[0] == 0 || d->hash[1] != d->n || d->str[d->str_len - 1] ||
	    (2 + (__u64)d->hash[0] + d->hash[1]) * sizeof(__u32) > hash->sh_size)
		return -1;
	for (size_t i = 0; i < d->n; i++)
		if (d->sym[i].st_name >= d->str_len)
			return -1;
	return 0;
}

/* Every symbol into the buckets and chains again, after a name changed. */
static void rehash(const struct dynsyms *d)
{
	__u32 nbucket = d->hash[0], *bucket = d->hash + 2, *chain = bucket + nbucket;

	memset(bucket, 0, ((size_t)nbucket + d->n) * sizeof(__u32));
	for (size_t i = 1; i < d->n; i++) {
		__u32 *head = &bucket[sysv_hash(d->str + d->sym[i].st_name) % nbucket];

		chain[i] = *head;
		*head = i;
	}
}

/* Whether a name other than the one at off ends inside [off, off + len]: a linker's shared tail. */
static bool shares_tail(const struct dynsyms *d, __u32 off, size_t len)
{
	for (size_t i = 1; i < d->n; i++)
		if (d->sym[i].st_name > off && d->sym[i].st_name <= off + len)
			return true;
	return false;
}

int bq_elf_rename_symbol(void *elf, size_t sz, const char *from, const char *to)
{
	size_t len = strlen(from), found = 0;
	struct dynsyms d;
	__u32 off = 0;

	if (strlen(to) > len || dynsyms(elf, sz, &d))
		return -1;
	for (size_t i = 1; i < d.n; i++) {
		if (!strcmp(d.str + d.sym[i].st_name, from)) {
			off = d.sym[i].st_name;
			found++;
		}
	}
	if (found != 1 || shares_tail(&d, off, len))
		return -1;
	/* A shorter name is padded with NULs. */
	memset(d.str + off, 0, len);
	memcpy(d.str + off, to, strlen(to));
	rehash(&d);
	return 0;
}
