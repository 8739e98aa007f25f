/*
 * loader.c - find, open and check a probe shared object (design §4).
 *
 * The probe search path is a colon-separated list, resolved once: the
 * directories given to loader_add_dir() (--probe-dir, in order), then
 * $SYSMETER_PROBE_DIR, then the runner's own probes (build/probes beside a
 * built runner, PREFIX/lib/sysmeter/probes beside an installed one).  A
 * bare probe name is looked up as
 * <dir>/<name>.so in each directory in turn (first match wins); a name
 * containing '/' is a path, and its stem (file name without ".so") is the
 * name the probe must export and declare.
 *
 * Checks, in this order, each with one message (the caller prefixes
 * "runner: "): the file exists, it dlopen()s (RTLD_NOW | RTLD_LOCAL), it
 * exports PROBE_SYMBOL ("sysmeter_probe", the same in every probe, so that
 * dlsym() can never hand back a libc function named like the file), dladdr()
 * places that symbol in this very file as a data object, abi is this
 * runner's major and the same or an older minor (read before any other
 * field), the symbol is as large as that minor's struct probe, name ==
 * stem, the required hooks setup/sample are present, at most
 * PROBE_MAX_EXTRA metrics, and every parameter's field lies inside
 * config_size with the size its type needs.  Any failure dlclose()s the
 * object.  Whatever passes is copied into this runner's layout first
 * (normalise(): a probe of an older minor is read only as far as its
 * minor's structs go), so the rest of the runner sees one layout.
 *
 * loader_open() does all that in a short-lived child and rebuilds the
 * metadata in the runner, so a constructor that crashes, loops or calls
 * exit() costs a message, not the runner; loader_dlopen() does it in the
 * calling process, for the point's own child (exec.c), which needs hooks.
 * That child, and the one that runs a probe's check hook, are supervised
 * by lib/supervise: their own process group, killed whole after the load
 * timeout ($SYSMETER_LOAD_TIMEOUT) and when they are reaped.
 */
#include "exec/loader.h"
#include "lib/monotonic.h"
#include "lib/supervise.h"
#include "lib/text.h"

#include <dirent.h>
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/evp.h>

static char *dir_added;		/* loader_add_dir()s, colon-joined, or NULL */
static char *dir_resolved;	/* what loader_dir() returns, computed lazily */

int loader_add_dir(const char *dir)
{
	char *joined;

	if (!dir || !*dir)
		return 0;
	if (asprintf(&joined, "%s%s%s", dir_added ? dir_added : "", dir_added ? ":" : "",
		     dir) < 0)
		return -1;
	free(dir_added);
	dir_added = joined;
	free(dir_resolved);
	dir_resolved = NULL;
	return 0;
}

void loader_clear_dirs(void)
{
	free(dir_added);
	dir_added = NULL;
	free(dir_resolved);
	dir_resolved = NULL;
}

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * The runner's own probes, found from where its executable is, so that no
 * install prefix is compiled in: <exe dir>/probes in a build tree
 * (build/runner), else <exe dir>/../lib/sysmeter/probes for an installed
 * runner (PREFIX/bin/runner, under any PREFIX or DESTDIR).  NULL when
 * neither exists.
 */
static char *exe_probe_dir(void)
{
	static const char *const rel[] = { "probes", "../lib/sysmeter/probes" };
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	char *slash, *dir;

	if (len <= 0)
		return NULL;
	exe[len] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
		if (asprintf(&dir, "%s/%s", exe, rel[i]) < 0)
			return NULL;
		if (is_dir(dir))
			return dir;
		free(dir);
	}
	return NULL;
}

/* --probe-dir directories first, then $SYSMETER_PROBE_DIR, then the
   runner's own probes: each adds to the search path, none replaces it. */
const char *loader_dir(void)
{
	const char *env = getenv("SYSMETER_PROBE_DIR");
	char *own;

	if (dir_resolved)
		return dir_resolved;
	own = exe_probe_dir();
	if (asprintf(&dir_resolved, "%s%s%s%s%s", dir_added ? dir_added : "",
		     dir_added && ((env && *env) || own) ? ":" : "", env ? env : "",
		     env && *env && own ? ":" : "", own ? own : "") < 0)
		dir_resolved = NULL;
	free(own);
	return dir_resolved ? dir_resolved : "";
}

/*
 * Call fn(dir, len, arg) for each non-empty component of the directory
 * list; stop early when fn returns non-zero and return that.
 */
static int each_dir(int (*fn)(const char *dir, size_t len, void *arg), void *arg)
{
	const char *p = loader_dir();

	while (*p) {
		size_t len = strcspn(p, ":");
		int rc;

		if (len > 0 && (rc = fn(p, len, arg)) != 0)
			return rc;
		p += len;
		if (*p == ':')
			p++;
	}
	return 0;
}

struct in_dir_arg {
	const char *dir;	/* realpath of the file's folder */
};

static int same_dir(const char *dir, size_t len, void *arg)
{
	const struct in_dir_arg *a = arg;
	char *d = strndup(dir, len), *real = d ? realpath(d, NULL) : NULL;
	int same = real && strcmp(real, a->dir) == 0;

	free(d);
	free(real);
	return same;
}

int loader_in_dirs(const char *path)
{
	char *real = realpath(path, NULL), *slash;
	int in = 0;

	if (!real)
		return 0;
	slash = strrchr(real, '/');
	if (slash) {
		*slash = '\0';
		struct in_dir_arg a = { real[0] ? real : "/" };
		in = each_dir(same_dir, &a);
	}
	free(real);
	return in;
}

static int only_dirs;	/* loader_only_dirs(1): a path probe must be in a dir */

void loader_only_dirs(int on)
{
	only_dirs = on;
}

struct find_arg {
	const char *name;
	char *path;		/* result, malloc'd */
	int oom;
};

static int find_in_dir(const char *dir, size_t len, void *arg)
{
	struct find_arg *fa = arg;
	struct stat st;
	char *path;

	if (asprintf(&path, "%.*s/%s.so", (int)len, dir, fa->name) < 0) {
		fa->oom = 1;
		return 1;
	}
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		fa->path = path;
		return 1;
	}
	free(path);
	return 0;
}

/* The stem of a path: file name without a trailing ".so" (malloc'd). */
static char *path_stem(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (len > 3 && strcmp(base + len - 3, ".so") == 0)
		len -= 3;
	return strndup(base, len);
}

static size_t count_params(const struct probe_param *t)
{
	size_t n = 0;

	while (t && t[n].name)
		n++;
	return n;
}

static size_t count_metrics(const struct probe_metric *t)
{
	size_t n = 0;

	while (t && t[n].name)
		n++;
	return n;
}

/* *path made absolute, so that the manifest records where the probe really
   was and `rerun` finds the same file from any directory. */
static int absolute(char **path, const char *name, char *err, size_t errlen)
{
	char *real = realpath(*path, NULL);

	if (!real) {
		snprintf(err, errlen, "probe '%s': %s: %s", name, *path, strerror(errno));
		return -1;
	}
	free(*path);
	*path = real;
	return 0;
}

/* Resolve `name` to (stem, path) of an existing file; errors name the probe. */
static int resolve(const char *name, char **stem, char **path, char *err, size_t errlen)
{
	struct stat st;

	*stem = *path = NULL;
	if (!name || !*name) {
		snprintf(err, errlen, "probe '': empty probe name");
		return -1;
	}
	if (strchr(name, '/')) {
		*stem = path_stem(name);
		*path = strdup(name);
		if (!*stem || !*path)
			goto oom;
		if (stat(*path, &st) != 0) {
			snprintf(err, errlen, "probe '%s': %s: %s", *stem, *path, strerror(errno));
			return -1;
		}
		if (only_dirs && !loader_in_dirs(*path)) {
			snprintf(err, errlen, "probe '%s': %s is not in a probe directory (give its "
				 "folder with --probe-dir to trust it)", *stem, *path);
			return -1;
		}
		return absolute(path, *stem, err, errlen);
	}
	struct find_arg fa = { .name = name };

	*stem = strdup(name);
	if (!*stem)
		goto oom;
	each_dir(find_in_dir, &fa);
	if (fa.oom)
		goto oom;
	if (!fa.path) {
		snprintf(err, errlen, "probe '%s': not found in %s", name, loader_dir());
		return -1;
	}
	*path = fa.path;
	return absolute(path, name, err, errlen);
oom:
	snprintf(err, errlen, "probe '%s': out of memory", name);
	return -1;
}

/* The expected C size of a parameter's config field, 0 for a bad type. */
static size_t field_size(const struct probe_param *pp)
{
	switch (pp->type) {
	case PROBE_INT: return sizeof(int64_t);
	case PROBE_SIZE: return sizeof(uint64_t);
	case PROBE_TIME:
	case PROBE_DOUBLE: return sizeof(double);
	case PROBE_STRING: return pp->choices ? sizeof(int) : sizeof(const char *);
	case PROBE_BOOL: return sizeof(int);
	}
	return 0;
}

#define MAX_CHOICES 4096

/* A choice parameter's rows (ABI 5.1): some; each name non-empty, without
   '|' (the runner joins them with it), listed once; each value once; the
   default one of the names. */
static int check_choices(const char *name, const struct probe_param *pp, char *err,
			 size_t errlen)
{
	const struct probe_choice *c = pp->choices;
	char names[512];
	size_t n = 0;

	if (pp->choices_text) {
		snprintf(err, errlen, "probe '%s': parameter '%s': choices_text is ABI 5.0's; since "
			 "5.1 choices are rows (PROBE_PARAM_CHOICE)", name, pp->name);
		return -1;
	}
	if (!c)
		return 0;
	if (pp->type != PROBE_STRING) {
		snprintf(err, errlen, "probe '%s': parameter '%s': choices on a parameter that is not "
			 "a string", name, pp->name);
		return -1;
	}
	for (; c[n].name; n++) {
		if (n == MAX_CHOICES) {
			snprintf(err, errlen, "probe '%s': parameter '%s': more than %d choices", name,
				 pp->name, MAX_CHOICES);
			return -1;
		}
		if (!c[n].name[0] || strchr(c[n].name, '|')) {
			snprintf(err, errlen, "probe '%s': parameter '%s': choice '%s' %s", name,
				 pp->name, c[n].name, c[n].name[0] ? "contains '|'" : "is empty");
			return -1;
		}
		for (size_t k = 0; k < n; k++) {
			if (strcmp(c[k].name, c[n].name) == 0) {
				snprintf(err, errlen, "probe '%s': parameter '%s': choice '%s' listed "
					 "twice", name, pp->name, c[n].name);
				return -1;
			}
			if (c[k].value == c[n].value) {
				snprintf(err, errlen, "probe '%s': parameter '%s': choices '%s' and '%s' "
					 "have the same value %d", name, pp->name, c[k].name, c[n].name,
					 c[n].value);
				return -1;
			}
		}
	}
	if (n == 0) {
		snprintf(err, errlen, "probe '%s': parameter '%s': no choices", name, pp->name);
		return -1;
	}
	if (pp->def && !spec_choice(c, pp->def)) {
		snprintf(err, errlen, "probe '%s': parameter '%s': default '%s' is not one of %s", name,
			 pp->name, pp->def, spec_choices_text(c, names, sizeof names));
		return -1;
	}
	return 0;
}

/* A choice parameter's rows are sound; each parameter writes a field of its
   type inside config_size. */
static int check_params(const char *name, const struct probe *p, char *err, size_t errlen)
{
	for (size_t i = 0; p->params && p->params[i].name; i++) {
		const struct probe_param *pp = &p->params[i];
		size_t want = field_size(pp);

		if (check_choices(name, pp, err, errlen) < 0)
			return -1;
		if (want == 0) {
			snprintf(err, errlen, "probe '%s': parameter '%s' has an unknown type %d", name,
				 pp->name, (int)pp->type);
			return -1;
		}
		if (pp->size != want) {
			snprintf(err, errlen,
				 "probe '%s': parameter '%s' has a %zu-byte field, its type needs %zu",
				 name, pp->name, pp->size, want);
			return -1;
		}
		if (pp->offset > p->config_size || p->config_size - pp->offset < pp->size) {
			snprintf(err, errlen,
				 "probe '%s': parameter '%s' lies outside config_size (%zu + %zu > %zu)",
				 name, pp->name, pp->offset, pp->size, p->config_size);
			return -1;
		}
	}
	return 0;
}

/* The probe's own texts go into every results file and onto the terminal:
   each must be printable UTF-8 (jansson refuses anything else, and the
   field would be silently lost). */
static int check_texts(const char *name, const struct probe *p, char *err, size_t errlen)
{
	const char *what = NULL;

#define TEXT_OK(s, w) do { if ((s) && !text_printable_utf8(s) && !what) what = (w); } while (0)
	TEXT_OK(p->version, "version");
	TEXT_OK(p->summary, "summary");
	TEXT_OK(p->unit, "unit");
	for (const struct probe_param *q = p->params; q && q->name; q++) {
		TEXT_OK(q->name, "a parameter's name");
		TEXT_OK(q->def, "a parameter's default");
		TEXT_OK(q->help, "a parameter's help");
		for (const struct probe_choice *c = q->choices; c && c->name; c++)
			TEXT_OK(c->name, "a parameter's choice");
	}
	for (const struct probe_metric *m = p->metrics; m && m->name; m++) {
		TEXT_OK(m->name, "a metric's name");
		TEXT_OK(m->unit, "a metric's unit");
		TEXT_OK(m->help, "a metric's help");
	}
#undef TEXT_OK
	if (what) {
		snprintf(err, errlen, "probe '%s': its %s is not printable UTF-8", name, what);
		return -1;
	}
	return 0;
}

/* Every check after the ABI number; returns 0 or -1 with err filled. */
static int check_probe(const char *name, const struct probe *p, char *err, size_t errlen)
{
	size_t n_metrics;

	if (!p->name) {
		snprintf(err, errlen, "probe '%s': declares no name, expected '%s' (the file stem)",
			 name, name);
		return -1;
	}
	if (strcmp(p->name, name) != 0) {
		snprintf(err, errlen,
			 "probe '%s': declares name '%s', expected '%s' (the file stem)", name,
			 p->name, name);
		return -1;
	}
	if (!p->setup || !p->sample) {
		snprintf(err, errlen, "probe '%s': required hook '%s' missing", name,
			 !p->setup ? "setup" : "sample");
		return -1;
	}
	n_metrics = count_metrics(p->metrics);
	if (n_metrics > PROBE_MAX_EXTRA) {
		snprintf(err, errlen, "probe '%s': declares %zu metrics, at most %d allowed", name,
			 n_metrics, PROBE_MAX_EXTRA);
		return -1;
	}
	if (check_texts(name, p, err, errlen) < 0)
		return -1;
	return check_params(name, p, err, errlen);
}

/*
 * What each minor of this runner's ABI major had of the structs a probe
 * provides: their sizes, so that a probe built for an older minor is read
 * only as far as its own structs go and its tables are stepped through by
 * its own row size (probe.h, "Compatibility").  Row i is minor i; a new
 * minor appends fields to these structs and a row here.
 */
static const struct abi_minor {
	size_t probe;		/* sizeof(struct probe) */
	size_t param;		/* sizeof(struct probe_param): its table's stride */
	size_t metric;		/* sizeof(struct probe_metric) */
	size_t choice;		/* sizeof(struct probe_choice); 0: no such table */
} abi_minors[] = {
	/* 5.0 */ { sizeof(struct probe), offsetof(struct probe_param, choices),
		    sizeof(struct probe_metric), 0 },
	/* 5.1: probe_param.choices, rows {name, value} */
	{ sizeof(struct probe), sizeof(struct probe_param), sizeof(struct probe_metric),
	  sizeof(struct probe_choice) },
	/* 5.2: probe_host.llc_bytes (a struct the runner provides: no change here) */
	{ sizeof(struct probe), sizeof(struct probe_param), sizeof(struct probe_metric),
	  sizeof(struct probe_choice) },
};

/* 5.0's struct probe_param ended where 5.1's `choices` begins: the
   field before it is a size_t, so no padding lies between them. */
_Static_assert(offsetof(struct probe_param, choices) ==
	       offsetof(struct probe_param, size) + sizeof(size_t),
	       "ABI 5.0's probe_param is 5.1's without choices");

_Static_assert(sizeof abi_minors / sizeof abi_minors[0] == PROBE_ABI_MINOR + 1,
	       "abi_minors[] has a row for every minor of PROBE_ABI_MAJOR");

/* The metadata in this runner's layout: lp->p points at .p, lp->meta at
   the whole (the probe's own struct is never handed on). */
struct meta {
	struct probe p;
	struct probe_param *params;
	struct probe_metric *metrics;
	void **owned;			/* texts and choice rows made for it */
	size_t n_owned;
};

static void meta_free(void *m)
{
	struct meta *mt = m;

	if (!mt)
		return;
	for (size_t i = 0; i < mt->n_owned; i++)
		free(mt->owned[i]);
	free(mt->owned);
	free(mt->params);
	free(mt->metrics);
	free(mt);
}

/* ptr (malloc'd, may be NULL) now belongs to mt; NULL when it cannot be
   kept (then it is freed). */
static void *meta_own(struct meta *mt, void *ptr)
{
	void **no;

	if (!ptr)
		return NULL;
	no = realloc(mt->owned, (mt->n_owned + 1) * sizeof *no);
	if (!no) {
		free(ptr);
		return NULL;
	}
	mt->owned = no;
	no[mt->n_owned++] = ptr;
	return ptr;
}

/* "5.1", or "4" for an ABI from before the minor. */
static const char *abi_text(unsigned abi, char *buf, size_t len)
{
	if (abi > 0xffffu)
		snprintf(buf, len, "%u.%u", PROBE_ABI_MAJOR_OF(abi), PROBE_ABI_MINOR_OF(abi));
	else
		snprintf(buf, len, "%u", abi);
	return buf;
}

/* The ABI version alone: this major, this minor or an older one.  The row
   of abi_minors[] for the probe's minor, or NULL with err filled. */
static const struct abi_minor *check_abi(const char *stem, unsigned abi, char *err, size_t errlen)
{
	char have[32];

	if (PROBE_ABI_MAJOR_OF(abi) != PROBE_ABI_MAJOR || abi <= 0xffffu) {
		snprintf(err, errlen, "probe '%s': ABI version %s, runner expects %u", stem,
			 abi_text(abi, have, sizeof have), PROBE_ABI_MAJOR);
		return NULL;
	}
	if (PROBE_ABI_MINOR_OF(abi) > PROBE_ABI_MINOR) {
		if (PROBE_ABI_MINOR == 0)
			snprintf(err, errlen, "probe '%s': ABI version %s, runner expects %u.0", stem,
				 abi_text(abi, have, sizeof have), PROBE_ABI_MAJOR);
		else
			snprintf(err, errlen, "probe '%s': ABI version %s, runner expects %u.0 to %u.%u",
				 stem, abi_text(abi, have, sizeof have), PROBE_ABI_MAJOR,
				 PROBE_ABI_MAJOR, PROBE_ABI_MINOR);
		return NULL;
	}
	return &abi_minors[PROBE_ABI_MINOR_OF(abi)];
}

/*
 * Find PROBE_SYMBOL and make sure it is this file's own data object before
 * reading a byte of it: dlsym() also searches the object's dependencies, and
 * a symbol may be absolute (no address in any file).  Then the ABI number,
 * alone, then that the symbol is as large as its minor's struct probe.
 * The probe's struct (not yet checked further) and its minor's sizes.
 */
static const struct probe *find_probe(void *dl, const char *stem, const char *path,
				      const struct abi_minor **minor, char *err, size_t errlen)
{
	struct link_map *own = NULL, *where = NULL;
	const ElfW(Sym) *sym = NULL;
	const struct probe *p;
	Dl_info info;
	char have[32];

	dlerror();
	p = dlsym(dl, PROBE_SYMBOL);
	if (!p) {
		snprintf(err, errlen, "probe '%s': %s does not export the symbol '%s'", stem, path,
			 PROBE_SYMBOL);
		return NULL;
	}
	if (dlinfo(dl, RTLD_DI_LINKMAP, &own) != 0 ||
	    !dladdr1(p, &info, (void **)&where, RTLD_DL_LINKMAP) || where != own) {
		snprintf(err, errlen, "probe '%s': the symbol '%s' does not lie in %s", stem,
			 PROBE_SYMBOL, path);
		return NULL;
	}
	if (!dladdr1(p, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym || info.dli_saddr != p ||
	    ELF64_ST_TYPE(sym->st_info) != STT_OBJECT || sym->st_size < sizeof p->abi) {
		snprintf(err, errlen, "probe '%s': the symbol '%s' in %s is not a struct probe",
			 stem, PROBE_SYMBOL, path);
		return NULL;
	}
	if (!(*minor = check_abi(stem, p->abi, err, errlen)))
		return NULL;
	if (sym->st_size < (*minor)->probe) {
		snprintf(err, errlen,
			 "probe '%s': the symbol '%s' is %zu bytes, struct probe of ABI %s is %zu",
			 stem, PROBE_SYMBOL, (size_t)sym->st_size, abi_text(p->abi, have, sizeof have),
			 (*minor)->probe);
		return NULL;
	}
	return p;
}

/*
 * A table of the probe's, `stride`-byte rows (its minor's row size, never
 * more than `size`, this runner's) that end with a NULL name (every row
 * type starts with its name), copied into `size`-byte rows: what the minor
 * did not have stays zero.  The row count in *n; a NULL table is an empty
 * one.  NULL: out of memory.
 */
static void *copy_table(const void *table, size_t stride, size_t size, size_t *n)
{
	const char *rows = table, *name = NULL;
	char *copy;

	for (*n = 0; rows; (*n)++) {
		memcpy(&name, rows + *n * stride, sizeof name);
		if (!name)
			break;
	}
	if (!(copy = calloc(*n + 1, size)))
		return NULL;
	for (size_t i = 0; i < *n; i++)
		memcpy(copy + i * size, rows + i * stride, stride);
	return copy;
}

/* ABI 5.0's choices, "a|b|c", as rows whose values are the indices (what
   a 5.0 probe's field received); 0, or -1: out of memory. */
static int choices_from_text(struct meta *mt, struct probe_param *pp)
{
	const char *t = pp->choices_text;
	size_t n = 1, i = 0;
	struct probe_choice *rows;

	for (const char *c = t; *c; c++)
		n += *c == '|';
	if (!(rows = meta_own(mt, calloc(n + 1, sizeof *rows))))
		return -1;
	for (const char *c = t;; i++) {
		size_t len = strcspn(c, "|");

		if (!(rows[i].name = meta_own(mt, strndup(c, len))))
			return -1;
		rows[i].value = (int)i;
		if (!c[len])
			break;
		c += len + 1;
	}
	pp->choices = rows;
	pp->choices_text = NULL;
	return 0;
}

/* The probe's struct and tables copied into this runner's layout as far as
   its minor had them (m), every later field zero; a 5.0 probe's choices
   made rows.  NULL: out of memory. */
static struct meta *normalise(const struct probe *raw, const struct abi_minor *m)
{
	struct meta *mt = calloc(1, sizeof *mt);
	size_t np, nm, nc;

	if (!mt)
		return NULL;
	memcpy(&mt->p, raw, m->probe);
	mt->params = copy_table(mt->p.params, m->param, sizeof *mt->params, &np);
	mt->metrics = copy_table(mt->p.metrics, m->metric, sizeof *mt->metrics, &nm);
	if (!mt->params || !mt->metrics)
		goto oom;
	for (size_t i = 0; i < np; i++) {
		struct probe_param *pp = &mt->params[i];

		if (m->choice && pp->choices &&
		    !(pp->choices = meta_own(mt, copy_table(pp->choices, m->choice,
							   sizeof *pp->choices, &nc))))
			goto oom;
		/* a minor without choice rows (5.0) wrote choices as text */
		if (!m->choice && pp->choices_text && choices_from_text(mt, pp) < 0)
			goto oom;
	}
	mt->p.params = mt->p.params ? mt->params : NULL;
	mt->p.metrics = mt->p.metrics ? mt->metrics : NULL;
	return mt;
oom:
	meta_free(mt);
	return NULL;
}

/* dlopen and check an already resolved file, in this process: lp->p is the
   probe in this runner's layout (lp->meta), its hooks those of the object. */
static int open_here(const char *stem, char *path, struct loaded_probe *out, char *err,
		     size_t errlen)
{
	const struct abi_minor *minor = NULL;
	const struct probe *raw;
	struct meta *mt = NULL;
	void *dl;
	const char *why;

	dlerror();
	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		why = dlerror();
		snprintf(err, errlen, "probe '%s': cannot load %s: %s", stem, path,
			 why ? why : "unknown error");
		return -1;
	}
	raw = find_probe(dl, stem, path, &minor, err, errlen);
	if (raw && !(mt = normalise(raw, minor)))
		snprintf(err, errlen, "probe '%s': out of memory", stem);
	if (!mt || check_probe(stem, &mt->p, err, errlen) != 0) {
		meta_free(mt);
		dlclose(dl);
		return -1;
	}
	out->dl = dl;
	out->meta = mt;
	out->p = &mt->p;
	out->path = path;
	out->n_params = count_params(out->p->params);
	out->n_metrics = count_metrics(out->p->metrics);
	return 0;
}

/* The sha256 of lp->path, or -1 with err filled. */
static int hash_probe(const char *stem, struct loaded_probe *lp, char *err, size_t errlen)
{
	if (loader_sha256_file(lp->path, lp->sha256) == 0)
		return 0;
	snprintf(err, errlen, "probe '%s': cannot read %s: %s", stem, lp->path, strerror(errno));
	return -1;
}

/* ------------------------------------------------------------------
 * Metadata in a child.  The child dlopens and checks the probe, then
 * writes one record down a pipe: 'E' and the error message, or 'M' and
 * every metadata field (strings as a length and bytes, numbers raw: both
 * ends are this binary).  The parent reads to EOF under a deadline, reaps
 * the child, and rebuilds a struct probe without hooks from the record.
 */

#define LOAD_TIMEOUT 5.0	/* seconds; $SYSMETER_LOAD_TIMEOUT overrides */
#define NO_STR UINT32_MAX

struct wbuf {
	char *b;
	size_t n, cap;
	int oom;
};

static void w_put(struct wbuf *w, const void *p, size_t n)
{
	if (w->oom)
		return;
	if (w->n + n > w->cap) {
		size_t cap = w->cap ? w->cap : 4096;
		char *nb;

		while (cap < w->n + n)
			cap *= 2;
		nb = realloc(w->b, cap);
		if (!nb) {
			w->oom = 1;
			return;
		}
		w->b = nb;
		w->cap = cap;
	}
	memcpy(w->b + w->n, p, n);
	w->n += n;
}

static void w_str(struct wbuf *w, const char *s)
{
	uint32_t len = s ? (uint32_t)strnlen(s, 65535) : NO_STR;

	w_put(w, &len, sizeof len);
	if (s)
		w_put(w, s, len);
}

#define W(w, v) w_put((w), &(v), sizeof(v))

static void w_probe(struct wbuf *w, const struct probe *p)
{
	uint64_t np = count_params(p->params), nm = count_metrics(p->metrics);

	W(w, p->abi);
	w_str(w, p->name);
	w_str(w, p->version);
	w_str(w, p->summary);
	w_str(w, p->unit);
	W(w, p->bigger_is_better);
	W(w, p->config_size);
	W(w, p->state_size);
	W(w, p->needs_counter_hz);
	W(w, p->fixed_iterations);
	W(w, p->iterations_hint);
	W(w, np);
	for (size_t i = 0; i < np; i++) {
		const struct probe_param *pp = &p->params[i];
		uint32_t nc = pp->choices ? 0 : NO_STR;

		w_str(w, pp->name);
		W(w, pp->type);
		w_str(w, pp->def);
		w_str(w, pp->help);
		W(w, pp->min);
		W(w, pp->max);
		W(w, pp->offset);
		W(w, pp->size);
		while (pp->choices && pp->choices[nc].name)
			nc++;
		W(w, nc);
		for (uint32_t k = 0; pp->choices && k < nc; k++) {
			w_str(w, pp->choices[k].name);
			W(w, pp->choices[k].value);
		}
	}
	W(w, nm);
	for (size_t i = 0; i < nm; i++) {
		w_str(w, p->metrics[i].name);
		w_str(w, p->metrics[i].unit);
		w_str(w, p->metrics[i].help);
	}
}

struct rbuf {
	const char *b;
	size_t n, off;
	int bad;
	struct meta *mt;
};

static void r_get(struct rbuf *r, void *p, size_t n)
{
	if (r->bad || r->n - r->off < n) {
		r->bad = 1;
		memset(p, 0, n);
		return;
	}
	memcpy(p, r->b + r->off, n);
	r->off += n;
}

#define R(r, v) r_get((r), &(v), sizeof(v))

/* A string of the record as the caller's own copy (NULL stays NULL). */
static char *r_dup(struct rbuf *r)
{
	uint32_t len;
	char *s;

	R(r, len);
	if (r->bad || len == NO_STR)
		return NULL;
	if (r->n - r->off < len || !(s = strndup(r->b + r->off, len))) {
		r->bad = 1;
		return NULL;
	}
	r->off += len;
	return s;
}

/* A string of the record, owned by r->mt (NULL stays NULL). */
static const char *r_str(struct rbuf *r)
{
	char *s = r_dup(r);

	if (s && !meta_own(r->mt, s)) {
		r->bad = 1;
		return NULL;
	}
	return s;
}

/* A parameter's choice rows: a count (NO_STR: none), then name and value
   each. */
static void r_choices(struct rbuf *r, struct meta *mt, struct probe_param *pp)
{
	struct probe_choice *rows;
	uint32_t nc = 0;

	R(r, nc);
	if (r->bad || nc == NO_STR)
		return;
	if (nc > MAX_CHOICES || !(rows = meta_own(mt, calloc(nc + 1, sizeof *rows)))) {
		r->bad = 1;
		return;
	}
	for (uint32_t k = 0; k < nc && !r->bad; k++) {
		rows[k].name = r_str(r);
		R(r, rows[k].value);
		r->bad |= !rows[k].name;
	}
	pp->choices = rows;
}

static void r_params(struct rbuf *r, struct meta *mt, uint64_t np)
{
	if (r->bad || np > 4096 || !(mt->params = calloc(np + 1, sizeof *mt->params))) {
		r->bad = 1;
		return;
	}
	for (size_t i = 0; i < np && !r->bad; i++) {
		struct probe_param *pp = &mt->params[i];

		pp->name = r_str(r);
		R(r, pp->type);
		pp->def = r_str(r);
		pp->help = r_str(r);
		R(r, pp->min);
		R(r, pp->max);
		R(r, pp->offset);
		R(r, pp->size);
		r_choices(r, mt, pp);
	}
}

static void r_metrics(struct rbuf *r, struct meta *mt, uint64_t nm)
{
	if (r->bad || nm > PROBE_MAX_EXTRA || !(mt->metrics = calloc(nm + 1, sizeof *mt->metrics))) {
		r->bad = 1;
		return;
	}
	for (size_t i = 0; i < nm && !r->bad; i++) {
		mt->metrics[i].name = r_str(r);
		mt->metrics[i].unit = r_str(r);
		mt->metrics[i].help = r_str(r);
	}
}

/* Rebuild the probe from an 'M' record; hooks stay NULL. */
static struct meta *r_probe(struct rbuf *r)
{
	struct meta *mt = calloc(1, sizeof *mt);
	struct probe *p;
	uint64_t np = 0, nm = 0;

	if (!mt)
		return NULL;
	r->mt = mt;
	p = &mt->p;
	R(r, p->abi);
	p->name = r_str(r);
	p->version = r_str(r);
	p->summary = r_str(r);
	p->unit = r_str(r);
	R(r, p->bigger_is_better);
	R(r, p->config_size);
	R(r, p->state_size);
	R(r, p->needs_counter_hz);
	R(r, p->fixed_iterations);
	R(r, p->iterations_hint);
	R(r, np);
	r_params(r, mt, np);
	R(r, nm);
	r_metrics(r, mt, nm);
	if (r->bad || !p->name || r->off != r->n) {
		meta_free(mt);
		return NULL;
	}
	p->params = mt->params;
	p->metrics = mt->metrics;
	return mt;
}

static void write_all(int fd, const char *b, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		b += w;
		n -= (size_t)w;
	}
}

/* Default crash signals (not a sanitizer's handler: a crash is a crash),
   no core file, no stdout (a constructor's printf must not reach ours),
   die with the runner. */
static void meta_child_sanitise(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGPIPE };
	struct rlimit nocore = { 0, 0 };
	int fd;

	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		signal(sigs[i], SIG_DFL);
	setrlimit(RLIMIT_CORE, &nocore);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	fd = open("/dev/null", O_WRONLY);
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		close(fd);
	}
}

static void meta_child_main(const char *stem, char *path, int fd) __attribute__((noreturn));
static void meta_child_main(const char *stem, char *path, int fd)
{
	struct loaded_probe lp;
	struct wbuf w = { 0 };
	char err[1024] = "";

	meta_child_sanitise();
	memset(&lp, 0, sizeof lp);
	if (open_here(stem, path, &lp, err, sizeof err) == 0) {
		w_put(&w, "M", 1);
		w_probe(&w, lp.p);
	} else {
		w_put(&w, "E", 1);
		w_str(&w, err);
	}
	if (!w.oom)
		write_all(fd, w.b, w.n);
	_exit(w.oom ? 3 : 0);
}

static double load_timeout(void)
{
	const char *env = getenv("SYSMETER_LOAD_TIMEOUT");
	char *end;
	double t;

	if (!env || !*env)
		return LOAD_TIMEOUT;
	t = strtod(env, &end);
	return *end == '\0' && t > 0 ? t : LOAD_TIMEOUT;
}

/* Read fd to EOF into w while c runs; returns 0, or -1 when the deadline
   passed first (c's process group is killed then). */
static int read_until(struct supervise *c, int fd, struct wbuf *w, double deadline)
{
	char buf[4096];

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int ev = supervise_wait(c, &pfd, 1, deadline, NULL);
		ssize_t got;

		if (ev >= 0 && (ev & SUPERVISE_TIMEOUT))
			return -1;
		if (ev >= 0 && !(ev & SUPERVISE_READABLE))
			continue;	/* the child ended: read on to the end of file */
		got = read(fd, buf, sizeof buf);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return 0;
		w_put(w, buf, (size_t)got);
	}
}

/* What a loading child runs, and the pipe it writes its record to. */
struct loading {
	void (*child)(void *arg, int fd);	/* never returns */
	void *arg;
	int pfd[2];
};

static void loading_start(void *arg)
{
	struct loading *l = arg;

	close(l->pfd[0]);
	l->child(l->arg, l->pfd[1]);
}

/* Run child(arg, fd) in a supervised child (its own process group) and
   read the record it writes to fd into w, for limit seconds at most; then
   its group is killed and it is reaped.  Returns 0 with its wait status in
   *status, 1 when it was still at it after limit seconds, -1 with err when
   it could not be started. */
static int loading_child(const char *name, void (*child)(void *arg, int fd), void *arg,
			 double limit, struct wbuf *w, int *status, char *err, size_t errlen)
{
	struct loading l = { .child = child, .arg = arg };
	struct supervise c;
	struct supervise_end end;
	int late;

	if (pipe2(l.pfd, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "probe '%s': pipe: %s", name, strerror(errno));
		return -1;
	}
	/* (supervise_spawn flushes stdio first: an exit() in a constructor
	   must not repeat our output) */
	if (supervise_spawn(&c, loading_start, &l) < 0) {
		snprintf(err, errlen, "probe '%s': fork: %s", name, strerror(errno));
		close(l.pfd[0]);
		close(l.pfd[1]);
		return -1;
	}
	close(l.pfd[1]);
	late = read_until(&c, l.pfd[0], w, monotonic_s() + limit) < 0;
	close(l.pfd[0]);
	supervise_reap(&c, &end);
	*status = end.status;
	return late;
}

/* The child's record and exit status turned into out->meta or a message. */
static int meta_result(const char *stem, const struct wbuf *w, int status, struct loaded_probe *out,
		       char *err, size_t errlen)
{
	struct rbuf r = { .b = w->b, .n = w->n };
	struct meta *mt;

	if (WIFSIGNALED(status)) {
		snprintf(err, errlen, "probe '%s': killed by signal %d (%s) while loading", stem,
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
		return -1;
	}
	if (w->n == 0 || WEXITSTATUS(status) != 0) {
		snprintf(err, errlen, "probe '%s': exited with status %d while loading", stem,
			 WEXITSTATUS(status));
		return -1;
	}
	r.off = 1;
	if (w->b[0] == 'E') {
		const char *msg;

		r.mt = calloc(1, sizeof *r.mt);
		msg = r.mt ? r_str(&r) : NULL;
		snprintf(err, errlen, "%s", msg ? msg : "probe: bad error record");
		meta_free(r.mt);
		return -1;
	}
	mt = w->b[0] == 'M' ? r_probe(&r) : NULL;
	if (!mt) {
		snprintf(err, errlen, "probe '%s': the loading child sent a bad record", stem);
		return -1;
	}
	out->meta = mt;
	out->p = &mt->p;
	out->n_params = count_params(mt->p.params);
	out->n_metrics = count_metrics(mt->p.metrics);
	return 0;
}

struct meta_args {
	const char *stem;
	char *path;
};

static void meta_child_start(void *arg, int fd)
{
	const struct meta_args *a = arg;

	meta_child_main(a->stem, a->path, fd);
}

static int meta_child(const char *stem, char *path, struct loaded_probe *out, char *err,
		      size_t errlen)
{
	struct wbuf w = { 0 };
	struct meta_args args = { .stem = stem, .path = path };
	double limit = load_timeout();
	int status = 0, rc, late;

	late = loading_child(stem, meta_child_start, &args, limit, &w, &status, err, errlen);
	if (late < 0)
		return -1;
	if (late)
		snprintf(err, errlen, "probe '%s': still loading after %gs, killed", stem, limit);
	if (w.oom)
		snprintf(err, errlen, "probe '%s': out of memory", stem);
	rc = late || w.oom ? -1 : meta_result(stem, &w, status, out, err, errlen);
	free(w.b);
	return rc;
}

/* ---- checking configurations (runner check) -------------------------- */

void *loader_config(const struct loaded_probe *lp, const struct spec_val *const *vals, char *err,
		    size_t errlen)
{
	const struct probe *p = lp->p;
	void *cfg;

	if (p->config_size == 0)
		return NULL;
	if (!(cfg = calloc(1, p->config_size))) {
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < lp->n_params; i++) {
		const struct spec_val *v = vals ? vals[i] : NULL;
		const char *text = v ? v->text : p->params[i].def ? p->params[i].def : "";
		double num = v ? v->num : strtod(text, NULL);

		if (loader_set_param(&p->params[i], cfg, text, num, err, errlen) < 0) {
			free(cfg);
			errno = EINVAL;
			return NULL;
		}
	}
	return cfg;
}

/* The child: open the probe here, run its check hook on every config and
   write one record per config: uint32 index, int32 rc, the message. */
static void check_child_main(const struct loaded_probe *lp, void *const *cfgs, size_t n, int fd)
	__attribute__((noreturn));
static void check_child_main(const struct loaded_probe *lp, void *const *cfgs, size_t n, int fd)
{
	struct loaded_probe here;
	struct wbuf w = { 0 };
	char err[1024] = "", *path = strdup(lp->path);

	meta_child_sanitise();
	memset(&here, 0, sizeof here);
	if (!path || open_here(lp->p->name, path, &here, err, sizeof err) != 0) {
		w_put(&w, "E", 1);
		w_str(&w, err);
	} else if (!here.p->check) {
		w_put(&w, "N", 1);
	} else {
		w_put(&w, "C", 1);
		for (size_t i = 0; i < n; i++) {
			uint32_t idx = (uint32_t)i;
			int32_t rc;

			err[0] = '\0';
			rc = here.p->check(cfgs[i], err, sizeof err);
			W(&w, idx);
			W(&w, rc);
			w_str(&w, rc ? err : NULL);
		}
	}
	if (!w.oom)
		write_all(fd, w.b, w.n);
	_exit(w.oom ? 3 : 0);
}

struct check_args {
	const struct loaded_probe *lp;
	void *const *cfgs;
	size_t n;
};

static void check_child_start(void *arg, int fd)
{
	const struct check_args *a = arg;

	check_child_main(a->lp, a->cfgs, a->n, fd);
}

int loader_check_configs(const struct loaded_probe *lp, void *const *cfgs, size_t n, char **msgs,
			 char *err, size_t errlen)
{
	struct wbuf w = { 0 };
	struct check_args args = { .lp = lp, .cfgs = cfgs, .n = n };
	int status = 0, late, rc = 0;

	for (size_t i = 0; i < n; i++)
		msgs[i] = NULL;
	late = loading_child(lp->p->name, check_child_start, &args, load_timeout(), &w, &status,
			     err, errlen);
	if (late < 0)
		return -1;
	if (late || w.oom || w.n == 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(err, errlen, "probe '%s': its parameter check %s", lp->p->name,
			 late ? "did not finish in time, killed"
			 : WIFSIGNALED(status) ? "crashed" : "failed");
		free(w.b);
		return -1;
	}
	struct rbuf r = { .b = w.b + 1, .n = w.n - 1 };
	if (w.b[0] == 'E') {
		char *m = r_dup(&r);
		snprintf(err, errlen, "%s", m ? m : "cannot open the probe");
		free(m);
		rc = -1;
	} else if (w.b[0] == 'C') {
		for (size_t i = 0; i < n && !r.bad; i++) {
			uint32_t idx = 0;
			int32_t prc = 0;

			R(&r, idx);
			R(&r, prc);
			char *m = r_dup(&r);
			if (!r.bad && idx < n && prc != 0)
				msgs[idx] = m ? m : strdup("rejected");
			else
				free(m);
		}
	}
	free(w.b);
	return rc;
}

/* Resolve `name`, open it with `how` (here, or in a child for metadata),
   hash it; on any failure everything is released and -1 returned. */
static int load(const char *name,
		int (*how)(const char *stem, char *path, struct loaded_probe *out, char *err,
			   size_t errlen),
		struct loaded_probe *out, char *err, size_t errlen)
{
	char *stem, *path;

	memset(out, 0, sizeof *out);
	if (resolve(name, &stem, &path, err, errlen) == 0 &&
	    how(stem, path, out, err, errlen) == 0) {
		out->path = path;	/* out owns it */
		path = NULL;
		if (hash_probe(stem, out, err, errlen) == 0) {
			free(stem);
			return 0;
		}
	}
	loader_close(out);
	free(stem);
	free(path);
	return -1;
}

int loader_dlopen(const char *name, struct loaded_probe *out, char *err, size_t errlen)
{
	return load(name, open_here, out, err, errlen);
}

int loader_open(const char *name, struct loaded_probe *out, char *err, size_t errlen)
{
	return load(name, meta_child, out, err, errlen);
}

void loader_close(struct loaded_probe *lp)
{
	if (!lp)
		return;
	if (lp->dl)
		dlclose(lp->dl);
	meta_free(lp->meta);
	free(lp->vars);
	free(lp->path);
	memset(lp, 0, sizeof *lp);
}

int loader_set_param(const struct probe_param *pp, void *cfg, const char *text, double num,
		     char *err, size_t errlen)
{
	if (pp->offset == PROBE_NO_FIELD)
		return 0;

	char *f = (char *)cfg + pp->offset;
	int64_t i64 = (int64_t)num;
	uint64_t u64 = num > 0 ? (uint64_t)num : 0;
	int i = num != 0;
	const char *s = text;
	const struct probe_choice *c;

	switch (pp->type) {
	case PROBE_INT: memcpy(f, &i64, sizeof i64); return 0;
	case PROBE_SIZE: memcpy(f, &u64, sizeof u64); return 0;
	case PROBE_TIME:
	case PROBE_DOUBLE: memcpy(f, &num, sizeof num); return 0;
	case PROBE_BOOL: memcpy(f, &i, sizeof i); return 0;
	case PROBE_STRING:
		if (!pp->choices) {
			memcpy(f, &s, sizeof s);
			return 0;
		}
		if (!(c = spec_choice(pp->choices, text))) {
			char names[512];

			snprintf(err, errlen, "parameter '%s': '%s' is not one of %s", pp->name, text,
				 spec_choices_text(pp->choices, names, sizeof names));
			return -1;
		}
		memcpy(f, &c->value, sizeof c->value);
		return 0;
	}
	snprintf(err, errlen, "parameter '%s': unknown type %d", pp->name, (int)pp->type);
	return -1;
}

struct list_arg {
	char **names;
	size_t n, cap;
	int oom;
};

static int listed(const struct list_arg *la, const char *name)
{
	for (size_t i = 0; i < la->n; i++)
		if (strcmp(la->names[i], name) == 0)
			return 1;
	return 0;
}

static int list_dir(const char *dir, size_t len, void *arg)
{
	struct list_arg *la = arg;
	char *path;
	DIR *d;
	struct dirent *de;

	if (asprintf(&path, "%.*s", (int)len, dir) < 0) {
		la->oom = 1;
		return 1;
	}
	d = opendir(path);
	if (!d) {
		free(path);
		return 0;	/* a missing directory is not an error */
	}
	while ((de = readdir(d)) != NULL) {
		size_t nl = strlen(de->d_name);
		char *full, *stem;
		struct stat st;
		int reg;

		if (nl <= 3 || strcmp(de->d_name + nl - 3, ".so") != 0 || de->d_name[0] == '.')
			continue;
		if (asprintf(&full, "%s/%s", path, de->d_name) < 0) {
			la->oom = 1;
			break;
		}
		reg = stat(full, &st) == 0 && S_ISREG(st.st_mode);
		free(full);
		if (!reg)
			continue;
		stem = strndup(de->d_name, nl - 3);
		if (!stem) {
			la->oom = 1;
			break;
		}
		if (listed(la, stem)) {
			free(stem);
			continue;
		}
		if (la->n == la->cap) {
			size_t cap = la->cap ? 2 * la->cap : 16;
			char **nn = realloc(la->names, cap * sizeof *nn);

			if (!nn) {
				free(stem);
				la->oom = 1;
				break;
			}
			la->names = nn;
			la->cap = cap;
		}
		la->names[la->n++] = stem;
	}
	closedir(d);
	free(path);
	return la->oom;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int loader_list(char ***names, size_t *n)
{
	struct list_arg la = { 0 };

	each_dir(list_dir, &la);
	if (la.oom) {
		for (size_t i = 0; i < la.n; i++)
			free(la.names[i]);
		free(la.names);
		*names = NULL;
		*n = 0;
		errno = ENOMEM;
		return -1;
	}
	if (la.n)
		qsort(la.names, la.n, sizeof *la.names, cmp_str);
	*names = la.names;
	*n = la.n;
	return 0;
}

int loader_sha256_file(const char *path, char out[65])
{
	unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx;
	ssize_t got;
	int fd, rc = -1, saved;

	out[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ctx = EVP_MD_CTX_new();
	if (!ctx) {
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
		errno = EIO;
		goto done;
	}
	for (;;) {
		got = read(fd, buf, sizeof buf);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			goto done;
		if (got == 0)
			break;
		if (EVP_DigestUpdate(ctx, buf, (size_t)got) != 1) {
			errno = EIO;
			goto done;
		}
	}
	if (EVP_DigestFinal_ex(ctx, md, &mdlen) != 1 || mdlen != 32) {
		errno = EIO;
		goto done;
	}
	for (unsigned i = 0; i < mdlen; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	rc = 0;
done:
	saved = errno;
	EVP_MD_CTX_free(ctx);
	close(fd);
	errno = saved;
	return rc;
}
