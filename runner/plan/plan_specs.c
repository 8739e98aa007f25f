/*
 * plan_specs.c - from the command line's paths to the run's experiments
 * (plan.h): spec files found in directories, a spec's own `quick:` profile,
 * --set, --filter, the `subtract:` targets pulled in, and binding to the
 * probe before the sweep is expanded.  Every transformation of a spec on
 * its way to points happens here or in plan.c, so that `run`, `check` and
 * `rerun` see the same experiments.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan/plan.h"
#include "lib/text.h"

static int has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Append dir's *.yaml / *.yml files (no dot files) to v[*n..], sorted by name. */
static int collect_dir(const char *dir, char ***v, size_t *n, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t first = *n;

	if (!d) {
		snprintf(err, errlen, "%s: cannot read: %s", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    !(has_suffix(de->d_name, ".yaml") || has_suffix(de->d_name, ".yml")))
			continue;
		char *p;
		const char *sep = has_suffix(dir, "/") ? "" : "/";
		if (asprintf(&p, "%s%s%s", dir, sep, de->d_name) < 0)
			break;
		*v = realloc(*v, (*n + 1) * sizeof **v);
		(*v)[(*n)++] = p;
	}
	closedir(d);
	if (*n == first) {
		snprintf(err, errlen, "%s: no specs (*.yaml) found", dir);
		return -1;
	}
	qsort(*v + first, *n - first, sizeof **v, cmp_str);
	return 0;
}

int plan_collect(char *const *paths, size_t npaths, char ***files, size_t *nfiles,
		 char *err, size_t errlen)
{
	char **v = NULL;
	size_t n = 0;

	for (size_t i = 0; i < npaths; i++) {
		struct stat st;
		if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			if (collect_dir(paths[i], &v, &n, err, errlen) < 0) {
				plan_files_free(v, n);
				return -1;
			}
		} else {
			v = realloc(v, (n + 1) * sizeof *v);
			v[n++] = strdup(paths[i]);
		}
	}
	*files = v;
	*nfiles = n;
	return 0;
}

void plan_files_free(char **files, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(files[i]);
	free(files);
}

/* The experiments being assembled: specs[0..n) are loaded. */
struct specset {
	struct spec *specs;
	int *selected;			/* passed --filter, or pulled in as a dependency */
	size_t n;
};

static struct spec *find_spec(struct specset *ss, const char *name)
{
	for (size_t i = 0; i < ss->n; i++)
		if (strcmp(ss->specs[i].name, name) == 0)
			return &ss->specs[i];
	return NULL;
}

/* Room for one more spec at ss->n, zeroed. */
static void specset_grow(struct specset *ss)
{
	ss->specs = realloc(ss->specs, (ss->n + 1) * sizeof *ss->specs);
	ss->selected = realloc(ss->selected, (ss->n + 1) * sizeof *ss->selected);
	memset(&ss->specs[ss->n], 0, sizeof ss->specs[ss->n]);
	ss->selected[ss->n] = 0;
}

/* Apply a spec's own `quick:` assignments to it (under --quick, or to a
   throw-away copy to validate them).  Errors name the entry's position. */
static int apply_quick(struct spec *s, char *err, size_t errlen)
{
	size_t n = s->n_quick;
	char **a = calloc(n + 1, sizeof *a);
	struct spec_pos *pos = calloc(n + 1, sizeof *pos);
	char *file = strdup(s->file), msg[1024];
	int rc = 0;

	/* spec_override replaces *s: keep our own copies. */
	for (size_t i = 0; i < n; i++) {
		a[i] = strdup(s->quick[i]);
		pos[i] = s->quick_pos[i];
	}
	for (size_t i = 0; i < n && rc == 0; i++)
		if (spec_override(s, a[i], msg, sizeof msg) < 0) {
			snprintf(err, errlen, "%s:%d:%d: quick: %s", file, pos[i].line, pos[i].col, msg);
			rc = -1;
		}
	for (size_t i = 0; i < n; i++)
		free(a[i]);
	free(a);
	free(pos);
	free(file);
	return rc;
}

/* Load one spec file into ss (counted even when it fails, so that it is
   freed), with its quick profile under --quick. */
static int load_one(struct specset *ss, const char *file, int quick, char *err, size_t errlen)
{
	specset_grow(ss);
	struct spec *s = &ss->specs[ss->n++];
	if (spec_load(file, s, err, errlen) < 0)
		return -1;
	return quick ? apply_quick(s, err, errlen) : 0;
}

/* Apply --set EXP.KEY=VALUE to the experiments it names ('*' = all). */
static int apply_sets(struct specset *ss, const struct plan_opts *o, char *err, size_t errlen)
{
	for (size_t k = 0; k < o->n_sets; k++) {
		const char *a = o->sets[k], *dot = strchr(a, '.'), *eq = strchr(a, '=');
		char msg[1024], shown[1024];
		int hit = 0;

		text_escape(a, shown, sizeof shown);	/* echoed: never raw controls */
		if (!dot || !eq || dot > eq || dot == a) {
			snprintf(err, errlen, "--set %s: expected EXPERIMENT.KEY=VALUE", shown);
			return -1;
		}
		size_t len = (size_t)(dot - a);
		for (size_t i = 0; i < ss->n; i++) {
			const char *name = ss->specs[i].name;
			if (!(len == 1 && a[0] == '*') &&
			    !(strlen(name) == len && strncmp(name, a, len) == 0))
				continue;
			hit = 1;
			if (spec_override(&ss->specs[i], dot + 1, msg, sizeof msg) < 0) {
				snprintf(err, errlen, "--set %s: %s", shown, msg);
				return -1;
			}
		}
		if (!hit) {
			snprintf(err, errlen, "--set %s: no experiment '%.*s' in this run", shown,
				 (int)strcspn(shown, "."), shown);
			return -1;
		}
	}
	return 0;
}

/* Select what --filter names (everything without one), then pull in what
   the selected experiments subtract: from the run, or from a spec file of
   that name beside the user's spec.  A target found in neither is left for
   plan_order to report with its position. */
static int select_and_pull(struct specset *ss, const struct plan_opts *o, char *err,
			   size_t errlen)
{
	for (size_t i = 0; i < ss->n; i++) {
		ss->selected[i] = o->n_filters == 0;
		for (size_t f = 0; f < o->n_filters; f++)
			if (fnmatch(o->filters[f], ss->specs[i].name, 0) == 0)
				ss->selected[i] = 1;
	}
	for (size_t i = 0; i < ss->n; i++) {
		if (!ss->selected[i])
			continue;
		for (size_t d = 0; d < ss->specs[i].n_subtract; d++) {
			const char *dep = ss->specs[i].subtract[d];
			struct spec *x = find_spec(ss, dep);
			if (x) {
				ss->selected[x - ss->specs] = 1;
				continue;
			}
			char path[4096], *slash;
			snprintf(path, sizeof path, "%s", ss->specs[i].file);
			slash = strrchr(path, '/');
			snprintf(slash ? slash + 1 : path,
				 sizeof path - (size_t)(slash ? slash + 1 - path : 0), "%s.yaml", dep);
			if (access(path, R_OK) != 0)
				continue;
			/* Not given --set: one naming it was already rejected as
			   "no experiment", and '*' was applied before it came. */
			if (load_one(ss, path, o->quick, err, errlen) < 0)
				return -1;
			ss->selected[ss->n - 1] = 1;
		}
	}
	return 0;
}

int plan_specs(char *const *files, size_t nfiles, const struct plan_opts *o,
	       struct spec **out, size_t *nout, char *err, size_t errlen)
{
	struct specset ss = {0};
	size_t used = 0;
	char one[1024];

	/* Every file is read: each one's error is said (joined so that the
	   caller's "runner: " prefix starts every line), not only the first. */
	for (size_t i = 0; i < nfiles; i++) {
		if (load_one(&ss, files[i], o->quick, one, sizeof one) < 0) {
			if (used < errlen)
				used += (size_t)snprintf(err + used, errlen - used, "%s%s",
							 used ? "\nrunner: " : "", one);
			if (o->n_bad)
				++*o->n_bad;
			if (o->keep_going)	/* out of the set: the others are checked */
				spec_free(&ss.specs[--ss.n]);
			continue;
		}
		struct spec *s = &ss.specs[ss.n - 1];
		for (size_t j = 0; j + 1 < ss.n; j++)
			if (ss.specs[j].name && s->name && strcmp(ss.specs[j].name, s->name) == 0 &&
			    used < errlen) {
				used += (size_t)snprintf(err + used, errlen - used,
							 "%s%s: experiment '%s' is also defined in %s",
							 used ? "\nrunner: " : "", files[i], s->name,
							 ss.specs[j].file);
				if (o->n_bad)
					++*o->n_bad;
				if (o->keep_going)
					spec_free(&ss.specs[--ss.n]);
				break;
			}
	}
	if (used && !o->keep_going)
		goto bad;
	if (used && ss.n == 0)
		goto bad;
	if (apply_sets(&ss, o, err, errlen) < 0 || select_and_pull(&ss, o, err, errlen) < 0)
		goto bad;
	/* Drop the unselected. */
	size_t k = 0;
	for (size_t i = 0; i < ss.n; i++) {
		if (ss.selected[i])
			ss.specs[k++] = ss.specs[i];
		else
			spec_free(&ss.specs[i]);
	}
	ss.n = k;
	if (ss.n == 0) {
		snprintf(err, errlen, "no experiment matches the filter");
		goto bad;
	}
	free(ss.selected);
	*out = ss.specs;
	*nout = ss.n;
	return 0;
bad:
	plan_specs_free(ss.specs, ss.n);
	free(ss.selected);
	return -1;
}

void plan_specs_free(struct spec *specs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		spec_free(&specs[i]);
	free(specs);
}

int plan_bind(struct spec *s, const struct probe *p, int quick, struct plan_point **pts,
	      size_t *npts, char *err, size_t errlen)
{
	if (s->n_quick) {
		/* Validate the quick profile on a copy, whether or not this is
		   a quick run, so its errors name its own lines. */
		struct spec q;
		int bad = spec_load(s->file, &q, err, errlen) < 0 ||
			  spec_bind(&q, p, err, errlen) < 0 || apply_quick(&q, err, errlen) < 0;
		spec_free(&q);
		if (bad)
			return -1;
	}
	if (spec_bind(s, p, err, errlen) < 0)
		return -1;
	if (quick)
		plan_quick(s);
	return plan_points(s, pts, npts, err, errlen);
}

int plan_load(char *const *paths, size_t npaths, const struct plan_opts *o, struct spec **specs,
	      size_t *n, char *err, size_t errlen)
{
	char **files = NULL;
	size_t nfiles = 0;
	int rc;

	if (plan_collect(paths, npaths, &files, &nfiles, err, errlen) < 0)
		return -1;
	rc = plan_specs(files, nfiles, o, specs, n, err, errlen);
	plan_files_free(files, nfiles);
	return rc;
}
