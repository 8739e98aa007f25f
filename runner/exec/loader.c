/*
 * loader.c - find, open and check a probe shared object (design §4).
 *
 * The probe directory is a colon-separated list, resolved once: the value
 * given to loader_set_dir() (--probe-dir), else $SYSMETER_PROBE_DIR, else
 * <directory of the runner binary>/probes when it exists, else
 * SYSMETER_PREFIX/lib/sysmeter/probes.  A bare probe name is looked up as
 * <dir>/<name>.so in each directory in turn (first match wins); a name
 * containing '/' is a path, and its stem (file name without ".so") is the
 * name the probe must export and declare.
 *
 * Checks, in this order, each with one message (the caller prefixes
 * "runner: "): the file exists, it dlopen()s (RTLD_NOW | RTLD_LOCAL), it
 * exports the symbol <stem>, abi == PROBE_ABI_VERSION, name == stem, the
 * required hooks setup/sample/teardown are present, and it declares at most
 * PROBE_MAX_EXTRA metrics.  Any failure dlclose()s the object.
 */
#include "exec/loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#ifndef SYSMETER_PREFIX
#define SYSMETER_PREFIX "/usr/local"
#endif

static char *dir_set;		/* loader_set_dir(), NULL = default */
static char *dir_resolved;	/* what loader_dir() returns, computed lazily */

void loader_set_dir(const char *dir)
{
	free(dir_set);
	dir_set = dir && *dir ? strdup(dir) : NULL;
	free(dir_resolved);
	dir_resolved = NULL;
}

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* <directory of /proc/self/exe>/probes, or NULL. */
static char *exe_probe_dir(void)
{
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
	if (asprintf(&dir, "%s/probes", exe) < 0)
		return NULL;
	if (!is_dir(dir)) {
		free(dir);
		return NULL;
	}
	return dir;
}

const char *loader_dir(void)
{
	const char *env;

	if (dir_resolved)
		return dir_resolved;
	env = getenv("SYSMETER_PROBE_DIR");
	if (dir_set)
		dir_resolved = strdup(dir_set);
	else if (env && *env)
		dir_resolved = strdup(env);
	else
		dir_resolved = exe_probe_dir();
	if (!dir_resolved)
		dir_resolved = strdup(SYSMETER_PREFIX "/lib/sysmeter/probes");
	return dir_resolved ? dir_resolved : SYSMETER_PREFIX "/lib/sysmeter/probes";
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

/* Every check after dlsym(); returns 0 or -1 with err filled. */
static int check_probe(const char *name, const struct probe *p, size_t n_metrics,
		       char *err, size_t errlen)
{
	if (p->abi != PROBE_ABI_VERSION) {
		snprintf(err, errlen, "probe '%s': ABI version %u, runner expects %u", name,
			 p->abi, (unsigned)PROBE_ABI_VERSION);
		return -1;
	}
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
	if (!p->setup || !p->sample || !p->teardown) {
		snprintf(err, errlen, "probe '%s': required hook '%s' missing", name,
			 !p->setup ? "setup" : !p->sample ? "sample" : "teardown");
		return -1;
	}
	if (n_metrics > PROBE_MAX_EXTRA) {
		snprintf(err, errlen, "probe '%s': declares %zu metrics, at most %d allowed", name,
			 n_metrics, PROBE_MAX_EXTRA);
		return -1;
	}
	return 0;
}

int loader_open(const char *name, struct loaded_probe *out, char *err, size_t errlen)
{
	char *stem = NULL, *path = NULL;
	void *dl = NULL;
	const struct probe *p;
	struct stat st;

	memset(out, 0, sizeof *out);
	if (!name || !*name) {
		snprintf(err, errlen, "probe '': empty probe name");
		return -1;
	}
	if (strchr(name, '/')) {
		stem = path_stem(name);
		path = strdup(name);
		if (!stem || !path)
			goto oom;
		if (stat(path, &st) != 0) {
			snprintf(err, errlen, "probe '%s': %s: %s", stem, path, strerror(errno));
			goto fail;
		}
	} else {
		struct find_arg fa = { .name = name };

		stem = strdup(name);
		if (!stem)
			goto oom;
		each_dir(find_in_dir, &fa);
		if (fa.oom)
			goto oom;
		if (!fa.path) {
			snprintf(err, errlen, "probe '%s': not found in %s", name, loader_dir());
			goto fail;
		}
		path = fa.path;
	}

	dlerror();
	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		const char *why = dlerror();

		snprintf(err, errlen, "probe '%s': cannot load %s: %s", stem, path,
			 why ? why : "unknown error");
		goto fail;
	}
	dlerror();
	p = dlsym(dl, stem);
	if (!p) {
		snprintf(err, errlen, "probe '%s': %s does not export the symbol '%s'", stem, path,
			 stem);
		goto fail;
	}
	out->n_params = count_params(p->params);
	out->n_metrics = count_metrics(p->metrics);
	if (check_probe(stem, p, out->n_metrics, err, errlen) != 0)
		goto fail;
	if (loader_sha256_file(path, out->sha256) != 0) {
		snprintf(err, errlen, "probe '%s': cannot read %s: %s", stem, path,
			 strerror(errno));
		goto fail;
	}
	out->dl = dl;
	out->p = p;
	out->path = path;
	free(stem);
	return 0;

oom:
	snprintf(err, errlen, "probe '%s': out of memory", name);
fail:
	if (dl)
		dlclose(dl);
	free(stem);
	free(path);
	memset(out, 0, sizeof *out);
	return -1;
}

void loader_close(struct loaded_probe *lp)
{
	if (!lp)
		return;
	if (lp->dl)
		dlclose(lp->dl);
	free(lp->path);
	memset(lp, 0, sizeof *lp);
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
