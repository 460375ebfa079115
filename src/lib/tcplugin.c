// SPDX-License-Identifier: GPL-2.0
/*
 * tc's plugin of a kind loaded from a file. tc finds a kind's plugin by
 * its name alone, dlopen("$TC_LIB_DIR/q_KIND.so") then
 * dlsym("KIND_qdisc_util"), so bpfqdisc load PATH writes one per kind: the
 * template plugin embedded here, whose one exported symbol and id are
 * placeholders as long as the longest kind, with the kind's names written
 * over them (elf.c rebuilds the symbol hash), and the kind's object
 * appended, for the tc of a user who cannot read root's pins (a plain
 * user in a user namespace of its own). Embedded rather than installed:
 * it is always this CLI's own, and there is no second file to find or to
 * trust.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "lib.h"
#include "pindir.h"

__asm__(".pushsection .rodata\n"
	".balign 16\n"
	".globl bq_tc_template\n.hidden bq_tc_template\n"
	"bq_tc_template:\n"
	".incbin \"" BQ_TC_TEMPLATE_SO "\"\n"
	".globl bq_tc_template_end\n.hidden bq_tc_template_end\n"
	"bq_tc_template_end:\n"
	".popsection\n");
extern const unsigned char bq_tc_template[], bq_tc_template_end[];

/* Where tc looks, as tc's get_tc_lib(): TC_LIB_DIR, else its own directory. */
static const char *tc_lib_dir(void)
{
	const char *dir = getenv("TC_LIB_DIR");

	return dir && *dir ? dir : BQ_TC_LIBDIR;
}

/*
 * tc, run by root, runs whatever is in the directory: one another user may
 * write is refused rather than written into (they could swap our file).
 * A missing one is not: no tc looks there.
 */
static int check_dir(const char *dir)
{
	char why[PATH_MAX + 128];
	struct stat st;
	int bad = stat(dir, &st);

	if (bad && errno == ENOENT) {
		bq_warn("note: no tc plugin written: %s does not exist (TC_LIB_DIR names tc's)", dir);
		return 1;
	}
	if (!bad && !S_ISDIR(st.st_mode)) {
		bad = -1;
		errno = ENOTDIR;
	}
	if (bad)
		return bq_error(-errno, "cannot use tc's plugin directory %s: %s", dir, strerror(errno));
	if (bq_check_owner(dir, &st, why, sizeof(why)))
		return bq_error(-EPERM, "%s", why);
	return 0;
}

/* The template (sz bytes, a copy) made the plugin of kind: 0 or -1. */
static int name_plugin(unsigned char *elf, size_t sz, const char *kind)
{
	char sym[BQ_KIND_LEN + 16];
	size_t len = 0;
	char *id = (char *)bq_elf_section(elf, sz, BQ_TC_KIND_SECTION, &len);

	if (!id || len != BQ_KIND_LEN || strcmp(id, BQ_TC_PLACEHOLDER) || strlen(kind) >= len)
		return -1;
	memset(id, 0, len);
	strcpy(id, kind);
	snprintf(sym, sizeof(sym), "%s_qdisc_util", kind);
	return bq_elf_rename_symbol(elf, sz, BQ_TC_PLACEHOLDER "_qdisc_util", sym);
}

/* The plugin of k into f: the named template, k's bq_object value, the trailer. */
static int write_plugin(FILE *f, const struct bq_kind *k)
{
	size_t sz = bq_tc_template_end - bq_tc_template, vsz = 0;
	struct bq_object_hdr *v = bq_object_value(k, &vsz);
	struct bq_tc_trailer t = { .size = vsz };
	unsigned char *elf = malloc(sz);
	int err = -1;

	memcpy(t.magic, BQ_TC_MAGIC, sizeof(t.magic));
	if (!v || !elf) {
		bq_err("cannot write the tc plugin of %s: %s", k->kind, strerror(ENOMEM));
	} else if (memcpy(elf, bq_tc_template, sz), name_plugin(elf, sz, k->kind)) {
		bq_err("cannot write the tc plugin of %s: its template is not one", k->kind);
	} else if (fwrite(elf, sz, 1, f) != 1 || fwrite(v, vsz, 1, f) != 1 ||
		   fwrite(&t, sizeof(t), 1, f) != 1 || fflush(f) || fsync(fileno(f))) {
		bq_err("cannot write the tc plugin of %s: %s", k->kind, strerror(errno));
	} else {
		err = 0;
	}
	free(elf);
	free(v);
	return err;
}

int bq_tc_plugin_stage(const struct bq_kind *k, struct bq_tc_plugin *p)
{
	const char *dir = tc_lib_dir();
	int fd, err = check_dir(dir);
	FILE *f;

	p->tmp[0] = '\0';
	if (err)
		return err < 0 ? err : 0;
	snprintf(p->path, sizeof(p->path), "%s/q_%s.so", dir, k->kind);
	/* Not q_*.so: tc never loads it half written. */
	snprintf(p->tmp, sizeof(p->tmp), "%s/.q_%s.so.XXXXXX", dir, k->kind);
	fd = mkstemp(p->tmp);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f || fchmod(fd, 0644)) {
		bq_err("cannot write %s: %s", p->tmp, strerror(errno));
		err = -1;
	} else {
		err = write_plugin(f, k);
	}
	if (f && fclose(f) && !err) {
		bq_err("cannot write %s: %s", p->tmp, strerror(errno));
		err = -1;
	} else if (!f && fd >= 0) {
		close(fd);
	}
	if (err && fd >= 0)
		unlink(p->tmp);
	if (err)
		p->tmp[0] = '\0';
	return err;
}

int bq_tc_plugin_commit(struct bq_tc_plugin *p, bool loaded)
{
	if (!p->tmp[0])
		return 0;
	if (loaded && !rename(p->tmp, p->path))
		return 0;
	if (loaded)
		bq_err("cannot put the tc plugin in place as %s: %s", p->path, strerror(errno));
	unlink(p->tmp);
	return loaded ? -1 : 0;
}

void bq_tc_plugin_remove(const struct bq_kind *k)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/q_%s.so", tc_lib_dir(), k->kind);
	if (unlink(path) && errno != ENOENT)
		bq_err("cannot remove tc's plugin %s: %s", path, strerror(errno));
}
