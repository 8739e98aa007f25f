/*
 * fuzz_results.c - the readers of a saved run folder on hostile JSON: a
 * run folder is untrusted input (it is copied between machines, edited,
 * truncated).  Each input is written into a scratch folder as
 * manifest.json and results/<name>.json for every experiment the manifest
 * names, then read by:
 *   results_load    the JSON loader (rerun reads the manifest with it);
 *   report_render   `runner report` with Markdown, LaTeX and HTML (no charts, no
 *                   PDF: nothing is spawned), i.e. report_model_build and
 *                   every report_* reader, and the templates in templates/;
 *   compare_main    `runner compare RUN RUN` (its output thrown away).
 * Checked: no crash, leak (ASan) or hang; the documented return values
 * only; an error comes with a message free of control characters.
 * rerun is not called: it loads probes and measures.  To cover a new
 * reader (results/reload.c, a run-folder validator), call it in check().
 *
 * Experiment names that are not plain file names ([A-Za-z0-9_.-], no
 * leading dot) get no results file: the harness must not write outside its
 * scratch folder.  The readers still see those names in the manifest.
 *
 * Plain mode ($(BUILD)/tests/test_fuzz_results, run by `make test`):
 *     test_fuzz_results [ITERATIONS [SEED]]      (default 100, 1)
 * mutates tests/fixtures/runs/basic as JSON trees (values replaced by
 * other types, keys removed, strings made hostile), replays
 * tests/fuzz/regress/results/, and prints one TAP line.  It needs the
 * project root as its working directory (templates/, the fixture run) and
 * says "skip" otherwise.  libFuzzer mode (-DFUZZ_LIBFUZZER): the input is
 * the manifest's text, a NUL byte, and the results file's text.
 * FUZZ_VERBOSE=1 in the environment keeps the readers' stdout and stderr.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "results/results.h"
#include "report/report.h"
#include "cli/compare.h"
#include "fuzz_util.h"

static int fails;
static char dir[64];
static const char *templates;

#define FAIL(...) do { printf("# " __VA_ARGS__); printf("\n"); fails++; } while (0)

static int safe_name(const char *s)
{
	if (!s || !*s || *s == '.' || strlen(s) > 100)
		return 0;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") ==
	       strlen(s);
}

static void put(const char *name, const char *text, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if ((f = fopen(path, "wb"))) {
		fwrite(text, 1, len, f);
		fclose(f);
	}
}

/* Empty the scratch folder (flat, plus results/ and charts/). */
static void clear(void)
{
	static const char *const sub[] = {"results", "charts", "."};
	char cmdpath[256];

	for (size_t i = 0; i < 3; i++) {
		snprintf(cmdpath, sizeof cmdpath, "%s/%s", dir, sub[i]);
		DIR *d = opendir(cmdpath);
		struct dirent *e;
		while (d && (e = readdir(d))) {
			char p[600];
			snprintf(p, sizeof p, "%s/%s", cmdpath, e->d_name);
			if (e->d_type != DT_DIR)
				unlink(p);
		}
		if (d)
			closedir(d);
	}
}

static void check(const char *man, size_t man_len, const char *res, size_t res_len)
{
	char path[256], err[2048];
	int quiet = !getenv("FUZZ_VERBOSE"), o1 = -1, o2 = -1;

	clear();
	put("manifest.json", man, man_len);
	json_t *m = json_loadb(man, man_len, 0, NULL), *x;
	size_t i;
	json_array_foreach(json_object_get(m, "experiments"), i, x) {
		const char *name = json_string_value(json_object_get(x, "name"));
		if (i < 16 && safe_name(name)) {
			snprintf(path, sizeof path, "results/%s.json", name);
			put(path, res, res_len);
		}
	}
	json_decref(m);

	snprintf(path, sizeof path, "%s/manifest.json", dir);
	err[0] = '\0';
	json_t *j = results_load(path, err, sizeof err);
	if (!j && (fz_bad_msg(err, sizeof err) || strncmp(err, path, strlen(path)) != 0))
		FAIL("results_load: NULL with a bad message '%.80s'", err);
	json_decref(j);

	if (quiet) {		/* the readers' messages, not the TAP stream */
		int null = open("/dev/null", O_WRONLY);
		fflush(stdout);
		fflush(stderr);
		o1 = dup(1), o2 = dup(2);
		dup2(null, 1), dup2(null, 2);
		close(null);
	}
	err[0] = '\0';
	int rr = report_render(dir, templates, REPORT_MD | REPORT_TEX | REPORT_HTML, 0, err,
			       sizeof err);
	struct compare_args ca = {NULL, NULL, NULL};
	int rc = compare_main(dir, dir, &ca);
	if (quiet) {
		fflush(stdout);
		fflush(stderr);
		dup2(o1, 1), dup2(o2, 2);
		close(o1), close(o2);
	}
	if (rr != 0 && rr != REPORT_EINPUT && rr != REPORT_EFAIL)
		FAIL("report_render returned %d", rr);
	if (rr != 0 && fz_bad_msg(err, sizeof err))
		FAIL("report_render: %d with a bad message '%.80s'", rr, err);
	if (rc < 0 || rc > 3)
		FAIL("compare_main returned %d", rc);
}

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/fuzz_results.%ld", (long)getpid());
	mkdir(dir, 0700);
	snprintf(dir + strlen(dir), sizeof dir - strlen(dir), "/results");
	mkdir(dir, 0700);
	dir[strlen(dir) - 8] = '\0';
	/* the tree's templates when run from the project root, else the
	   runner's defaults (beside the binary) */
	templates = access("templates/report.md", R_OK) == 0 ? "templates" : NULL;
}

static void teardown(void)
{
	char p[128];

	clear();
	snprintf(p, sizeof p, "%s/results", dir);
	rmdir(p);
	snprintf(p, sizeof p, "%s/charts", dir);
	rmdir(p);
	rmdir(dir);
}

#ifdef FUZZ_LIBFUZZER
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	setup();
	atexit(teardown);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *nul = memchr(s, '\0', size);
	size_t ml = nul ? (size_t)(nul - s) : size;

	check(s, ml, nul ? nul + 1 : "", nul ? size - ml - 1 : 0);
	if (fails)
		abort();
	return 0;
}
#else
/* A hostile replacement for a JSON value. */
static json_t *hostile(void)
{
	static const char *const strs[] = {
		"", "../../etc/passwd", "x/y", "\x1b[2J", "line\nbreak", "'`$(id)`'", "%s%n", "nan",
		"1e308", "-1", "sysmeter.manifest/1", "sysmeter.result/1", "ok", "failed", "partial",
		"results/../manifest.json", "\xc3\xa9\xce\xb1", "NaN", "{{title}}", "\\", "null",
	};
	switch (fz_next() % 10) {
	case 0: return json_null();
	case 1: return json_true();
	case 2: return json_integer((json_int_t)(fz_next() % 3 ? fz_next() % 5 : fz_next()) -
				    (fz_next() % 2 ? 2 : 0));
	case 3: return json_real((double)(int64_t)fz_next() / (double)(fz_next() % 1000 + 1) *
				 (fz_next() % 2 ? 1e-300 : 1e300));
	case 4: return json_array();
	case 5: return json_object();
	case 6: return json_pack("[i,s,n]", 1, "x");
	default: return json_string(strs[fz_next() % (sizeof strs / sizeof *strs)]);
	}
}

/* Replace, delete or duplicate a random node somewhere under j. */
static void mutate_tree(json_t *j)
{
	for (int depth = 0; depth < 8; depth++) {
		size_t n = json_is_object(j) ? json_object_size(j) : json_array_size(j);
		if (n == 0)
			return;
		size_t k = fz_next() % n;
		json_t *child;
		const char *key = NULL;
		if (json_is_object(j)) {
			void *it = json_object_iter(j);
			while (k--)
				it = json_object_iter_next(j, it);
			key = json_object_iter_key(it);
			child = json_object_iter_value(it);
		} else {
			child = json_array_get(j, k);
		}
		int leaf = !json_is_object(child) && !json_is_array(child);
		if (leaf || fz_next() % 4 == 0) {
			switch (fz_next() % 4) {
			case 0:				/* remove */
				if (key)
					json_object_del(j, key);
				else
					json_array_remove(j, k);
				break;
			case 1:				/* duplicate in an array */
				if (!key)
					json_array_insert_new(j, k, json_deep_copy(child));
				break;
			default:			/* replace */
				if (key)
					json_object_set_new(j, key, hostile());
				else
					json_array_set_new(j, k, hostile());
			}
			return;
		}
		j = child;
	}
}

static char *dump_mutated(const json_t *orig, size_t *len)
{
	json_t *c = json_deep_copy(orig);
	for (int k = (int)(fz_next() % 4); k > 0; k--)
		mutate_tree(c);
	char *s = json_dumps(c, JSON_COMPACT);
	json_decref(c);
	*len = s ? strlen(s) : 0;
	return s;
}

int main(int argc, char **argv)
{
	unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 10) : 100, done = 0;
	struct fz_corpus res = {0}, regress = {0};
	double t0 = fz_now();

	fz_rng = argc > 2 ? strtoull(argv[2], NULL, 10) | 1 : 1;
	printf("1..1\n");
	json_t *man = json_load_file("tests/fixtures/runs/basic/manifest.json", 0, NULL);
	fz_add_dir(&res, "tests/fixtures/runs/basic/results", ".json", 1 << 20);
	if (!man || res.n == 0) {
		printf("ok 1 # skip fuzz_results: run from the project root (no tests/fixtures/runs/basic)\n");
		json_decref(man);
		return 0;
	}
	setup();
	json_t **rj = calloc(res.n, sizeof *rj);
	for (size_t i = 0; i < res.n; i++)
		rj[i] = json_loads(res.text[i], 0, NULL);
	fz_add_dir(&regress, "tests/fuzz/regress/results", "", 1 << 20);
	for (size_t i = 0; i < regress.n; i++) {
		const char *nul = memchr(regress.text[i], '\0', regress.len[i]);
		size_t ml = nul ? (size_t)(nul - regress.text[i]) : regress.len[i];
		check(regress.text[i], ml, nul ? nul + 1 : "", nul ? regress.len[i] - ml - 1 : 0);
	}
	char *ms = json_dumps(man, JSON_COMPACT);
	check(ms, strlen(ms), res.text[0], res.len[0]);		/* the fixture as it is */
	free(ms);
	for (; done < iters && fails < 10; done++) {
		size_t ml, rl, r = fz_next() % res.n;
		char *m = fz_next() % 3 ? dump_mutated(man, &ml) : json_dumps(man, JSON_COMPACT);
		char *rs = rj[r] ? dump_mutated(rj[r], &rl) : NULL;
		if (m && fz_next() % 3 == 0) {			/* now and then cut short */
			ml = fz_next() % (strlen(m) + 1);
		} else if (m) {
			ml = strlen(m);
		}
		if (m && rs)
			check(m, ml, rs, rl);
		free(m);
		free(rs);
	}
	printf("%s 1 - fuzz_results: %zu regression inputs, %lu mutated run folders read by "
	       "results_load, report_render (md, tex, html) and compare_main (%.1f s)\n",
	       fails ? "not ok" : "ok", regress.n, done, fz_now() - t0);
	for (size_t i = 0; i < res.n; i++)
		json_decref(rj[i]);
	free(rj);
	fz_free(&res);
	fz_free(&regress);
	json_decref(man);
	teardown();
	return fails ? 1 : 0;
}
#endif
