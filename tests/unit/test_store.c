/*
 * test_store.c - the store's pure parts (params key, filters, a URL
 * without its password, ISO times) and the series query over a SQLite
 * store holding two hand-made run folders: rows per point ordered by key
 * then time, the filters, the round estimates, the baseline.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "store/store.h"
#include "store/store_key.h"

static void keys(void)
{
	json_t *p = json_pack("{s:i,s:s,s:f,s:b}", "size", 4096, "mode", "a,b=c%", "wait", 0.001,
			      "flag", 0);
	char *k = store_params_key(p);

	is_str(k, "flag=false,mode=a%2Cb%3Dc%25,size=4096,wait=0.001",
	       "params key: sorted by name, ',' '=' '%' escaped, numbers as written");
	ok(store_key_has(k, "size=4096"), "a filter on one parameter matches");
	ok(store_key_has(k, "mode=a,b=c%"), "a filter's value is escaped as the key's is");
	ok(!store_key_has(k, "size=409"), "a prefix of a value does not match");
	ok(!store_key_has(k, "ize=4096"), "a suffix of a name does not match");
	ok(!store_key_has(k, "size"), "a filter without '=' matches nothing");
	free(k);
	json_decref(p);
	p = json_object();
	k = store_params_key(p);
	is_str(k, "", "no parameters: the empty key");
	free(k);
	json_decref(p);
}

static void urls(void)
{
	static const char *const cases[][2] = {
		{"postgresql://alice:s3cr3t@db.example:5432/runs", "postgresql://alice@db.example:5432/runs"},
		{"postgres://alice@h/db", "postgres://alice@h/db"},
		{"postgresql:///runs?host=/tmp/x&password=s3cr3t&sslmode=disable",
		 "postgresql:///runs?host=/tmp/x&sslmode=disable"},
		{"postgresql://u:p@h/db?password=q", "postgresql://u@h/db"},
		{"postgresql://h/db?application_name=a:b@c", "postgresql://h/db?application_name=a:b@c"},
		/* more in test_store_url.c */
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *r = store_redact_url(cases[i][0]);
		is_str(r, cases[i][1], cases[i][0]);
		free(r);
	}
	ok(store_is_url("postgresql://h/db") && store_is_url("postgres://h/db") &&
	   !store_is_url("out/sysmeter.db"), "which locations are URLs");
	is_num(store_iso_seconds("2026-11-25T08:00:00Z"), 1795593600, 0, "ISO time as unix seconds");
	ok(isnan(store_iso_seconds("yesterday")), "a time that is not ISO: NaN");
}

/* A run folder of experiment "x" at time `started` with points of size
   1 and 2 (estimates base + size, rounds base + size -/+ 0.1). */
static void make_run(const char *root, const char *id, const char *started, const char *host,
		     double base)
{
	char path[4096];
	json_t *pts = json_array();

	snprintf(path, sizeof path, "%s/%s", root, id);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/%s/results", root, id);
	mkdir(path, 0755);
	for (int size = 1; size <= 2; size++) {
		double e = base + size;
		json_array_append_new(pts, json_pack(
			"{s:i,s:{s:i,s:s},s:s,s:f,s:[f,f],s:f,s:i,s:i,s:[{s:s}],s:[{s:i,s:f},{s:i,s:f}]}",
			"index", size - 1, "params", "size", size, "mode", "a", "status", "ok",
			"estimate", e, "ci", e - 0.5, e + 0.5, "ci_level", 0.95, "n", 10, "n_rounds", 2,
			"sanity", "flag", size == 2 ? "high_variation" : "drift",
			"rounds", "round", 0, "estimate", e - 0.1, "round", 1, "estimate", e + 0.1));
	}
	json_t *res = json_pack("{s:s,s:s,s:{s:s},s:o}", "schema", "sysmeter.result/1",
				"experiment", "x", "probe", "unit", "ns", "points", pts);
	snprintf(path, sizeof path, "%s/%s/results/x.json", root, id);
	json_dump_file(res, path, 0);
	json_decref(res);
	json_t *m = json_pack("{s:s,s:s,s:s,s:s,s:i,s:{s:s,s:s,s:s},s:[{s:s,s:s,s:s,s:s}]}",
			      "schema", "sysmeter.manifest/1", "run_id", id, "started", started,
			      "status", "complete", "seed", 1, "machine", "hostname", host,
			      "kernel", "Linux 6.1", "cpu_model", "test cpu", "experiments", "name", "x",
			      "result", "results/x.json", "status", "ok", "spec_sha256", "abc");
	snprintf(path, sizeof path, "%s/%s/manifest.json", root, id);
	json_dump_file(m, path, 0);
	json_decref(m);
}

static void series(void)
{
	char root[] = "/tmp/test_store.XXXXXX", err[4096], dir[4200];
	struct store *s;
	struct store_row *rows;
	size_t n;

	if (!mkdtemp(root)) {
		ok(0, "mkdtemp");
		return;
	}
	make_run(root, "r2", "2026-11-25T10:00:00Z", "hostA", 20);
	make_run(root, "r1", "2026-11-25T09:00:00Z", "hostA", 10);
	make_run(root, "r3", "2026-11-25T11:00:00Z", "hostB", 30);
	s = store_open(NULL, root, err, sizeof err);
	if (!ok(s != NULL, "a new store opens: %s", s ? "" : err))
		return;
	snprintf(dir, sizeof dir, "%s/r1", root);
	ok(store_record(s, dir, err, sizeof err) == 2, "run 1 recorded: 2 points");
	snprintf(dir, sizeof dir, "%s/r2", root);
	ok(store_record(s, dir, err, sizeof err) == 2, "run 2 recorded: 2 points");
	snprintf(dir, sizeof dir, "%s/r3", root);
	ok(store_record(s, dir, err, sizeof err) == 2, "run 3 recorded: 2 points");

	struct store_query q = {.experiment = "x"};
	ok(store_series(s, &q, &rows, &n, err, sizeof err) == 0 && n == 6, "all six points");
	if (n == 6) {
		is_str(rows[0].run_id, "r1", "ordered by key, then time: r1 first");
		is_str(rows[1].run_id, "r2", "then r2");
		is_str(rows[2].run_id, "r3", "then r3");
		is_str(rows[3].params_key, "mode=a,size=2", "then the next key");
		is_num(rows[1].estimate, 21, 1e-12, "the estimate");
		is_num(rows[1].ci_lo, 20.5, 1e-12, "the CI's low end");
		is_num(rows[1].ci_hi, 21.5, 1e-12, "the CI's high end");
		is_num(rows[1].level, 0.95, 1e-12, "the CI's level");
		is_num(rows[1].started, 1795600800, 0, "the run's start");
		ok(rows[1].nround == 2 && fabs(rows[1].round_est[0] - 20.9) < 1e-12 &&
		   fabs(rows[1].round_est[1] - 21.1) < 1e-12, "the round estimates, in order");
		is_str(rows[1].flags, "drift", "the flags");
		is_str(rows[1].unit, "ns", "the unit");
		is_str(rows[1].host, "hostA", "the host");
		is_str(rows[1].kernel, "Linux 6.1", "the kernel");
		ok(rows[1].n == 10 && rows[1].rounds == 2, "n and rounds");
		is_str(rows[0].params_json, "{\"mode\":\"a\",\"size\":1}", "the parameters as JSON");
	}
	store_rows_free(rows, n);

	const char *w[] = {"size=2"};
	struct store_query q2 = {.experiment = "x", .where = w, .nwhere = 1, .host = "hostA"};
	ok(store_series(s, &q2, &rows, &n, err, sizeof err) == 0 && n == 2 &&
	   !strcmp(rows[0].run_id, "r1") && !strcmp(rows[1].run_id, "r2") &&
	   !strcmp(rows[0].params_key, "mode=a,size=2"), "--where size=2 --host hostA: two rows");
	store_rows_free(rows, n);

	struct store_query q3 = {.experiment = "x", .since = 1795600800};
	ok(store_series(s, &q3, &rows, &n, err, sizeof err) == 0 && n == 4, "since r2's start: 4 rows");
	store_rows_free(rows, n);

	struct store_query q4 = {.experiment = "y"};
	ok(store_series(s, &q4, &rows, &n, err, sizeof err) == 0 && n == 0 && !rows,
	   "an experiment never run: no rows");

	char *bdir, *bid;
	ok(store_baseline(s, "r2", &bdir, &bid, err, sizeof err) == 1 && !strcmp(bid, "r1"),
	   "r2's baseline is r1 (r3 is later and on another host)");
	free(bdir), free(bid);
	ok(store_baseline(s, "r3", &bdir, &bid, err, sizeof err) == 0,
	   "r3 has none: no earlier run on its host");
	store_close(s);
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		ok(0, "cleaning up %s", root);
}

int main(void)
{
	keys();
	urls();
	series();
	return done_testing();
}
