/*
 * check.c - the store against the run folders it points to (store_check,
 * `runner store check`): every run's folder and manifest still there and
 * unchanged, every experiment's result file unchanged and with as many
 * points as the store holds of it.
 */
#include "results/results.h"
#include "store/store.h"
#include "store/store_db.h"
#include "store/store_key.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* One experiment of a run: result file hash and point counts. */
static int check_experiment(FILE *out, const char *run, const char *dir, char *const *c)
{
	const char *name = c[0], *sha = c[1], *npts = c[2], *stored = c[3];
	char path[PATH_MAX + 300], now[65], why[1024];
	json_t *res;
	size_t n;
	int bad = 0;
	struct stat st;

	snprintf(path, sizeof path, "%s/results/%s.json", dir, name);
	if (!sha) {
		if (stat(path, &st) == 0) {
			fprintf(out, "%s: %s: a result file the store has not recorded\n", run, path);
			return 1;
		}
		return 0;
	}
	if (store_sha256_file(path, now, why, sizeof why) < 0) {
		fprintf(out, "%s: %s\n", run, why);
		return 1;
	}
	if (strcmp(now, sha)) {
		fprintf(out, "%s: %s: changed since it was recorded (sha256 %.12s..., stored %.12s...)\n",
			run, path, now, sha);
		bad = 1;
	}
	if (!(res = results_load(path, why, sizeof why))) {
		fprintf(out, "%s: %s\n", run, why);
		return 1;
	}
	n = json_array_size(json_object_get(res, "points"));
	json_decref(res);
	if (!same(npts, stored) || (npts && strtoul(npts, NULL, 10) != n)) {
		fprintf(out, "%s: %s: %zu points in the file, %s recorded, %s in the store\n", run,
			name, n, npts ? npts : "none", stored ? stored : "none");
		bad = 1;
	}
	return bad;
}

/* One run: its folder, manifest, experiments. */
static int check_run(struct store *s, FILE *out, char *const *r, char *err, size_t errlen)
{
	const char *id = r[0], *dir = r[1], *msha = r[2];
	char mpath[PATH_MAX + 32], now[65], why[1024];
	struct store_result xs;
	const char *p[] = {id};
	json_t *m;
	int bad = 0;

	if (!(m = results_manifest_read(dir, why, sizeof why))) {
		fprintf(out, "%s: %s: the run folder is missing or unreadable: %s\n", id, dir, why);
		return 1;
	}
	snprintf(mpath, sizeof mpath, "%s/manifest.json", dir);
	if (store_sha256_file(mpath, now, why, sizeof why) < 0 || !same(now, msha)) {
		fprintf(out, "%s: %s: changed since it was recorded\n", id, mpath);
		bad = 1;
	}
	if (store_db_exec(s,
			  "SELECT x.experiment, x.result_sha256, x.n_points, (SELECT COUNT(*) FROM "
			  "points p WHERE p.run_id = x.run_id AND p.experiment = x.experiment) "
			  "FROM run_experiments x WHERE x.run_id = $1 ORDER BY x.experiment",
			  p, 1, &xs, err, errlen) < 0) {
		json_decref(m);
		return -1;
	}
	if (xs.nrows != json_array_size(json_object_get(m, "experiments"))) {
		fprintf(out, "%s: %zu experiments in the manifest, %zu in the store\n", id,
			json_array_size(json_object_get(m, "experiments")), xs.nrows);
		bad = 1;
	}
	for (size_t i = 0; i < xs.nrows; i++)
		bad |= check_experiment(out, id, dir, xs.cell + i * xs.ncols);
	store_result_free(&xs);
	json_decref(m);
	return bad;
}

int store_check(struct store *s, FILE *out, size_t *nruns, char *err, size_t errlen)
{
	struct store_result runs;
	int bad = 0;

	if (store_db_exec(s, "SELECT id, run_dir, manifest_sha256 FROM runs ORDER BY started, id",
			  NULL, 0, &runs, err, errlen) < 0)
		return -1;
	*nruns = runs.nrows;
	for (size_t i = 0; i < runs.nrows; i++) {
		int rc = check_run(s, out, runs.cell + i * runs.ncols, err, errlen);

		if (rc < 0) {
			store_result_free(&runs);
			return -1;
		}
		bad += rc;
	}
	store_result_free(&runs);
	return bad;
}
