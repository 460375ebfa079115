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

const void *bq_elf_section(const void *elf, size_t sz, const char *name, size_t *len)
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
		    strcmp(s, name) || sh[i].sh_type != SHT_PROGBITS ||
		    !inside(sz, sh[i].sh_offset, sh[i].sh_size))
			continue;
		*len = sh[i].sh_size;
		return b + sh[i].sh_offset;
	}
	return NULL;
}
