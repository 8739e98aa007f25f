/*
 * record.c - a run folder into the store (store_record): the folder is
 * read through results/ (a folder read back is untrusted: the manifest is
 * checked, JSON read only from regular files), then the run's rows are
 * replaced in one transaction, so recording a run twice (a resume, an
 * import of a run already recorded) leaves one copy of it, and a reader
 * never sees half a run.
 */
#include "results/results.h"
#include "lib/jsonutil.h"
#include "store/store.h"
#include "store/store_db.h"
#include "store/store_key.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Text of a JSON value for a parameter: numbers with all their digits,
   NULL for null/absent or a non-finite number. */
static const char *num(const json_t *v, char *buf, size_t len)
{
	if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v) && isfinite(json_real_value(v)))
		snprintf(buf, len, "%.17g", json_real_value(v));
	else
		return NULL;
	return buf;
}

static const char *dnum(double v, char *buf, size_t len)
{
	if (!isfinite(v))
		return NULL;
	snprintf(buf, len, "%.17g", v);
	return buf;
}

/* Now in unix seconds to the microsecond: the order of two runs recorded
   in the same second. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

struct rec {
	struct store *s;
	const char *run_id;
	char *err;
	size_t errlen;
};

#define EXEC(r, sql, ...) \
	store_db_exec((r)->s, sql, (const char *const[]){__VA_ARGS__}, \
		      sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *), NULL, \
		      (r)->err, (r)->errlen)

static int del_run(struct rec *r)
{
	static const char *const tables[] = {
		"DELETE FROM round_estimates WHERE run_id = $1",
		"DELETE FROM points WHERE run_id = $1",
		"DELETE FROM run_experiments WHERE run_id = $1",
		"DELETE FROM runs WHERE id = $1",
	};
	for (size_t i = 0; i < sizeof tables / sizeof *tables; i++)
		if (EXEC(r, tables[i], r->run_id) < 0)
			return -1;
	return 0;
}

static int put_run(struct rec *r, const json_t *m, const char *dir, const char *msha)
{
	const json_t *mach = json_object_get(m, "machine"), *runner = json_object_get(m, "runner");
	char fp[32], b1[64], b2[64], b3[64], b4[64], b5[64], b6[64], b7[64], seed[32];
	const char *seed_text = json_string_value(json_object_get(m, "seed_text"));
	char *opts = json_dumps(json_object_get(m, "options") ? json_object_get(m, "options")
							       : json_null(),
				JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY);
	char *facts = json_dumps(mach ? mach : json_null(), JSON_SORT_KEYS | JSON_COMPACT |
				 JSON_ENCODE_ANY);
	const json_t *sv = json_object_get(m, "seed");
	int rc;

	if (!opts || !facts)
		abort();
	store_fingerprint(mach, fp, sizeof fp);
	if (json_is_integer(sv))	/* the 64-bit seed, as the run printed it */
		snprintf(seed, sizeof seed, "%llu", (unsigned long long)json_integer_value(sv));
	rc = EXEC(r, "INSERT INTO machines (fingerprint, hostname, facts) VALUES ($1, $2, $3) "
		  "ON CONFLICT (fingerprint) DO UPDATE SET hostname = excluded.hostname, "
		  "facts = excluded.facts",
		  fp, json_string_value(json_object_get(mach, "hostname")), facts);
	if (rc == 0)
		rc = EXEC(r, "INSERT INTO runs (id, started, finished, fingerprint, hostname, kernel, "
			  "git_commit, runner_version, seed, options, status, exit_code, run_dir, "
			  "manifest_sha256, recorded, canary_ns, core_hz, wake_us) VALUES ($1, $2, $3, "
			  "$4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)",
			  r->run_id,
			  dnum(store_iso_seconds(json_string_value(json_object_get(m, "started"))), b1,
			       sizeof b1),
			  dnum(store_iso_seconds(json_string_value(json_object_get(m, "finished"))), b2,
			       sizeof b2),
			  fp, json_string_value(json_object_get(mach, "hostname")),
			  json_string_value(json_object_get(mach, "kernel")),
			  json_string_value(json_object_get(runner, "git_commit")),
			  json_string_value(json_object_get(runner, "version")),
			  json_is_integer(sv) ? seed : seed_text, opts,
			  json_string_value(json_object_get(m, "status")),
			  num(json_object_get(m, "exit_code"), b3, sizeof b3), dir, msha,
			  dnum(now_s(), b4, sizeof b4),
			  dnum(store_canary_ns(json_object_get(m, "drift")), b5, sizeof b5),
			  dnum(jsonutil_num(json_object_get(json_object_get(m, "drift"), "core_clock"),
					    "median_hz"), b6, sizeof b6),
			  dnum(store_wake_us(json_object_get(m, "drift")), b7, sizeof b7));
	free(opts);
	free(facts);
	return rc;
}

/* ", "-joined sanity flags of a point ("" when none). */
static char *flags_of(const json_t *pt)
{
	const json_t *f;
	size_t i, len = 0, n = 0;
	char *buf = NULL;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		abort();
	json_array_foreach(json_object_get(pt, "sanity"), i, f) {
		const char *name = json_string_value(json_object_get(f, "flag"));

		if (name)
			fprintf(out, "%s%s", n++ ? "," : "", name);
	}
	if (fclose(out) != 0 || !buf)
		abort();
	return buf;
}

static int put_point(struct rec *r, const char *exp, const char *unit, const json_t *pt)
{
	const json_t *params = json_object_get(pt, "params"), *ci = json_object_get(pt, "ci"), *rd;
	char idx[32], b[8][64], *key = store_params_key(params), *flags = flags_of(pt);
	char *pj = json_dumps(params ? params : json_null(), JSON_SORT_KEYS | JSON_COMPACT |
			      JSON_ENCODE_ANY);
	size_t i;
	int rc;

	if (!pj)
		abort();
	snprintf(idx, sizeof idx, "%lld", (long long)json_integer_value(json_object_get(pt, "index")));
	rc = EXEC(r, "INSERT INTO points (run_id, experiment, idx, params_json, params_key, status, "
		  "estimate, ci_lo, ci_hi, ci_level, unit, n, rounds, flags, prediction) VALUES "
		  "($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
		  r->run_id, exp, idx, pj, key, json_string_value(json_object_get(pt, "status")),
		  num(json_object_get(pt, "estimate"), b[0], 64), num(json_array_get(ci, 0), b[1], 64),
		  num(json_array_get(ci, 1), b[2], 64), num(json_object_get(pt, "ci_level"), b[3], 64),
		  unit, num(json_object_get(pt, "n"), b[4], 64),
		  num(json_object_get(pt, "n_rounds"), b[5], 64), flags,
		  num(json_object_get(json_object_get(pt, "prediction"), "value"), b[6], 64));
	free(pj);
	free(key);
	free(flags);
	json_array_foreach(json_object_get(pt, "rounds"), i, rd) {
		if (rc < 0)
			break;
		rc = EXEC(r, "INSERT INTO round_estimates (run_id, experiment, idx, round, estimate) "
			  "VALUES ($1, $2, $3, $4, $5)", r->run_id, exp, idx,
			  num(json_object_get(rd, "round"), b[0], 64),
			  num(json_object_get(rd, "estimate"), b[1], 64));
	}
	return rc;
}

/* One experiment of the manifest: its spec hash, its result file's rows. */
static int put_experiment(struct rec *r, const char *dir, const json_t *x)
{
	const char *name = json_string_value(json_object_get(x, "name"));
	const char *spec = json_string_value(json_object_get(x, "spec_sha256"));
	char path[PATH_MAX + 300], sha[65] = "", npts[32];
	const json_t *pt;
	const char *unit = NULL;
	json_t *res = NULL;
	struct stat st;
	size_t i;
	int rc;

	snprintf(path, sizeof path, "%s/results/%s.json", dir, name);
	/* an experiment the run never reached has no file: recorded with no points */
	if (stat(path, &st) == 0 || errno != ENOENT) {
		if (!(res = results_load(path, r->err, r->errlen)) ||
		    store_sha256_file(path, sha, r->err, r->errlen) < 0) {
			json_decref(res);
			return -1;
		}
		unit = json_string_value(json_object_get(json_object_get(res, "probe"), "unit"));
	}
	snprintf(npts, sizeof npts, "%zu", json_array_size(json_object_get(res, "points")));
	if (spec && EXEC(r, "INSERT INTO experiments (name, spec_sha256) VALUES ($1, $2) "
			 "ON CONFLICT (name, spec_sha256) DO NOTHING", name, spec) < 0)
		goto fail;
	rc = EXEC(r, "INSERT INTO run_experiments (run_id, experiment, spec_sha256, status, unit, "
		  "result_sha256, n_points) VALUES ($1, $2, $3, $4, $5, $6, $7)", r->run_id, name,
		  spec, json_string_value(json_object_get(x, "status")), unit, *sha ? sha : NULL,
		  npts);
	if (rc < 0)
		goto fail;
	json_array_foreach(json_object_get(res, "points"), i, pt) {
		if (!json_is_object(pt)) {
			snprintf(r->err, r->errlen, "%s: points[%zu]: expected an object", path, i);
			goto fail;
		}
		if (put_point(r, name, unit, pt) < 0)
			goto fail;
	}
	json_decref(res);
	return 0;
fail:
	json_decref(res);
	return -1;
}

int store_record(struct store *s, const char *run_dir, char *err, size_t errlen)
{
	char dir[PATH_MAX], mpath[PATH_MAX + 32], msha[65];
	json_t *m, *x;
	struct rec r = {.s = s, .err = err, .errlen = errlen};
	size_t i, points = 0;

	if (!realpath(run_dir, dir)) {
		snprintf(err, errlen, "%s: %s", run_dir, strerror(errno));
		return -1;
	}
	if (!(m = results_manifest_read(dir, err, errlen)))
		return -1;
	r.run_id = json_string_value(json_object_get(m, "run_id"));
	snprintf(mpath, sizeof mpath, "%s/manifest.json", dir);
	if (!r.run_id) {
		snprintf(err, errlen, "%s: no run_id", mpath);
		json_decref(m);
		return -1;
	}
	if (store_sha256_file(mpath, msha, err, errlen) < 0 || store_db_begin(s, err, errlen) < 0) {
		json_decref(m);
		return -1;
	}
	if (del_run(&r) < 0 || put_run(&r, m, dir, msha) < 0)
		goto fail;
	json_array_foreach(json_object_get(m, "experiments"), i, x) {
		if (put_experiment(&r, dir, x) < 0)
			goto fail;
	}
	if (store_db_commit(s, err, errlen) < 0) {
		json_decref(m);
		return -1;
	}
	{
		struct store_result cnt;
		const char *p[] = {r.run_id};

		if (store_db_exec(s, "SELECT COUNT(*) FROM points WHERE run_id = $1", p, 1, &cnt, err,
				  errlen) == 0 && cnt.nrows && cnt.cell[0])
			points = strtoul(cnt.cell[0], NULL, 10);
		store_result_free(&cnt);
	}
	json_decref(m);
	return (int)points;
fail:
	store_db_rollback(s);
	json_decref(m);
	return -1;
}
