/*
 * check.c - the store against the run folders (store_check, `runner store
 * check`): a SQLite file read whole (PRAGMA quick_check: a damaged page
 * the other reads never touch is found too); every run's folder and
 * manifest still there and unchanged, its manifest saying it is recorded,
 * every experiment's result file unchanged and with as many points as the
 * store holds of it; and every run folder under the runs folder that the
 * store lacks.  Files are read through results/ and store_sha256_file:
 * never a FIFO (a hang), never through a symbolic link.
 */
#include "results/results.h"
#include "lib/text.h"
#include "store/store.h"
#include "store/store_db.h"
#include "store/store_key.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Room for any path of ours escaped (text_escape: 4 bytes a byte). */
#define SHOWN (4 * PATH_MAX + 1)

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* s fit for a terminal, in a static buffer of its own per slot. */
static const char *shown(const char *s, int slot)
{
	static char buf[3][SHOWN];

	text_escape(s ? s : "", buf[slot], sizeof buf[slot]);
	return buf[slot];
}

/* One experiment of a run: result file hash and point counts. */
static int check_experiment(FILE *out, const char *run, const char *dir, char *const *c)
{
	const char *name = c[0], *sha = c[1], *npts = c[2], *stored = c[3];
	char path[PATH_MAX + 300], now[65], why[PATH_MAX + 1024];
	json_t *res;
	size_t n;
	int bad = 0;
	struct stat st;

	snprintf(path, sizeof path, "%s/results/%s.json", dir, name);
	if (!sha) {
		if (lstat(path, &st) == 0) {
			fprintf(out, "%s: %s: a result file the store has not recorded\n", shown(run, 0),
				shown(path, 1));
			return 1;
		}
		return 0;
	}
	/* a FIFO or a symbolic link is refused here, before anything waits on it */
	if (store_sha256_file(path, now, why, sizeof why) < 0) {
		fprintf(out, "%s: %s\n", shown(run, 0), shown(why, 1));
		return 1;
	}
	if (strcmp(now, sha)) {
		fprintf(out, "%s: %s: changed since it was recorded (sha256 %.12s..., stored %.12s...)\n",
			shown(run, 0), shown(path, 1), now, sha);
		bad = 1;
	}
	if (!(res = results_load(path, why, sizeof why))) {
		fprintf(out, "%s: %s\n", shown(run, 0), shown(why, 1));
		return 1;
	}
	n = json_array_size(json_object_get(res, "points"));
	json_decref(res);
	if (!same(npts, stored) || (npts && strtoul(npts, NULL, 10) != n)) {
		fprintf(out, "%s: %s: %zu points in the file, %s recorded, %s in the store\n",
			shown(run, 0), shown(name, 1), n, npts ? npts : "none", stored ? stored : "none");
		bad = 1;
	}
	return bad;
}

/* Does the manifest say its run is not recorded (store.recorded false)? */
static int says_unrecorded(const json_t *m)
{
	const json_t *st = json_object_get(m, "store");

	return json_is_object(st) && json_is_false(json_object_get(st, "recorded"));
}

/* One run: its folder, manifest, experiments. */
static int check_run(struct store *s, FILE *out, char *const *r, char *err, size_t errlen)
{
	const char *id = r[0], *dir = r[1], *msha = r[2];
	char mpath[PATH_MAX + 32], now[65], why[PATH_MAX + 1024];
	struct store_result xs;
	const char *p[] = {id};
	json_t *m;
	int bad = 0;

	if (!dir || !(m = results_manifest_read(dir, why, sizeof why))) {
		fprintf(out, "%s: %s: the run folder is missing or unreadable: %s\n", shown(id, 0),
			shown(dir, 1), dir ? shown(why, 2) : "no folder recorded");
		return 1;
	}
	snprintf(mpath, sizeof mpath, "%s/manifest.json", dir);
	if (store_sha256_file(mpath, now, why, sizeof why) < 0 || !same(now, msha)) {
		fprintf(out, "%s: %s: changed since it was recorded\n", shown(id, 0), shown(mpath, 1));
		bad = 1;
	}
	if (says_unrecorded(m)) {
		/* the store committed, the manifest's last write never came (a
		   kill between the two), or it could not be made */
		fprintf(out, "%s: %s: its manifest says the run is not recorded (store.recorded "
			"false), yet the store has it: record it again with: runner store import %s\n",
			shown(id, 0), shown(dir, 1), shown(dir, 2));
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
		fprintf(out, "%s: %zu experiments in the manifest, %zu in the store\n", shown(id, 0),
			json_array_size(json_object_get(m, "experiments")), xs.nrows);
		bad = 1;
	}
	for (size_t i = 0; i < xs.nrows; i++)
		bad |= check_experiment(out, id, dir, xs.cell + i * xs.ncols);
	store_result_free(&xs);
	json_decref(m);
	return bad;
}

/* A SQLite store read whole: PRAGMA quick_check (every page, every
   index's entries against its table) says "ok" or what is wrong.  The
   other reads of the check touch the pages of the runs only, so a damaged
   page elsewhere (a point, a round estimate) read "0 differ".  PostgreSQL
   keeps its own checksums.  1 when damaged (said), 0 when not. */
static int damaged(struct store *s, FILE *out)
{
	struct store_result r;
	char why[4096];
	size_t shown_rows = 0;

	if (strcmp(s->drv->name, "sqlite") != 0)
		return 0;
	if (store_db_exec(s, "PRAGMA quick_check", NULL, 0, &r, why, sizeof why) < 0) {
		fprintf(out, "%s: the store is damaged: %s\n", shown(store_where(s), 0), shown(why, 1));
		return 1;
	}
	if (r.nrows == 1 && r.ncols >= 1 && same(r.cell[0], "ok")) {
		store_result_free(&r);
		return 0;
	}
	for (size_t i = 0; i < r.nrows && r.ncols >= 1; i++)
		if (shown_rows++ < 10)
			fprintf(out, "%s: the store is damaged: %s\n", shown(store_where(s), 0),
				shown(r.cell[i * r.ncols] ? r.cell[i * r.ncols] : "?", 1));
	if (r.nrows > 10)
		fprintf(out, "%s: the store is damaged: %zu more problems\n",
			shown(store_where(s), 0), r.nrows - 10);
	fprintf(out, "%s: move it away, and `runner store import` the run folders into a new one\n",
		shown(store_where(s), 0));
	store_result_free(&r);
	return 1;
}

static int cmp_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct scan {
	FILE *out;
	char **known;			/* the store's run folders, sorted */
	size_t nknown;
	const char *import_store;	/* --store for the hint; NULL: the default */
	size_t missing;
};

static void scan_folders(struct scan *sc, const char *dir, int depth);

/* One folder under the runs folder: a run folder (it holds a manifest)
   the store lacks is said; a fleet's folder (`hosts`) is made of its
   hosts' runs, hosts/NAME/, checked instead; a merge's folder (`merge`)
   is no run of its own. */
static void scan_one(struct scan *sc, const char *path, int depth)
{
	char mpath[PATH_MAX + 32], real[PATH_MAX], why[PATH_MAX + 1024], hosts[PATH_MAX + 8];
	struct stat st;
	json_t *m;
	char *key = real;

	snprintf(mpath, sizeof mpath, "%s/manifest.json", path);
	if (lstat(mpath, &st) < 0)
		return;			/* not a run folder */
	if (!(m = results_manifest_read(path, why, sizeof why))) {
		fprintf(sc->out, "%s: a run folder the store cannot take: %s\n", shown(path, 0),
			shown(why, 1));
		sc->missing++;
		return;
	}
	if (json_object_get(m, "merge")) {
		json_decref(m);
		return;
	}
	if (json_object_get(m, "hosts") && depth == 0) {
		json_decref(m);
		snprintf(hosts, sizeof hosts, "%s/hosts", path);
		scan_folders(sc, hosts, depth + 1);
		return;
	}
	if (realpath(path, real) &&
	    bsearch(&key, sc->known, sc->nknown, sizeof *sc->known, cmp_text)) {
		json_decref(m);
		return;
	}
	fprintf(sc->out, "%s: not in the store%s (record it with: runner store import%s%s %s)\n",
		shown(path, 0), says_unrecorded(m) ? "; its manifest says so (store.recorded false)"
		: "", sc->import_store ? " --store " : "",
		sc->import_store ? shown(sc->import_store, 1) : "", shown(path, 2));
	sc->missing++;
	json_decref(m);
}

/* Every folder of dir, in name order; symbolic links (out/latest) are
   not followed. */
static void scan_folders(struct scan *sc, const char *dir, int depth)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);

	if (n < 0) {
		if (depth > 0)
			fprintf(sc->out, "%s: %s\n", shown(dir, 0), strerror(errno));
		sc->missing += depth > 0;
		return;
	}
	for (int i = 0; i < n; i++) {
		char path[PATH_MAX];
		struct stat st;

		if (strcmp(ents[i]->d_name, ".") && strcmp(ents[i]->d_name, "..") &&
		    (size_t)snprintf(path, sizeof path, "%s/%s", dir, ents[i]->d_name) < sizeof path &&
		    lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			scan_one(sc, path, depth);
		free(ents[i]);
	}
	free(ents);
}

int store_check(struct store *s, const char *runs_dir, const char *import_store, FILE *out,
		struct store_check_count *cnt, char *err, size_t errlen)
{
	struct store_result runs;
	struct scan sc = {.out = out, .import_store = import_store};
	struct stat st;

	*cnt = (struct store_check_count){0};
	if (runs_dir && stat(runs_dir, &st) < 0) {
		snprintf(err, errlen, "%s: %s", runs_dir, strerror(errno));
		return -1;
	}
	cnt->damaged = damaged(s, out);
	if (store_db_exec(s, "SELECT id, run_dir, manifest_sha256 FROM runs ORDER BY started, id",
			  NULL, 0, &runs, err, errlen) < 0)
		return -1;
	cnt->runs = runs.nrows;
	for (size_t i = 0; i < runs.nrows; i++) {
		int rc = check_run(s, out, runs.cell + i * runs.ncols, err, errlen);

		if (rc < 0) {
			store_result_free(&runs);
			return -1;
		}
		cnt->differ += (size_t)rc;
	}
	if (runs_dir) {
		if (!(sc.known = calloc(runs.nrows + 1, sizeof *sc.known)))
			abort();
		for (size_t i = 0; i < runs.nrows; i++)
			if (runs.cell[i * runs.ncols + 1])
				sc.known[sc.nknown++] = runs.cell[i * runs.ncols + 1];
		qsort(sc.known, sc.nknown, sizeof *sc.known, cmp_text);
		scan_folders(&sc, runs_dir, 0);
		cnt->missing = sc.missing;
		free(sc.known);
	}
	store_result_free(&runs);
	return (int)(cnt->differ + cnt->missing) + cnt->damaged;
}
