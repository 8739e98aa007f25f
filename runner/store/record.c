/*
 * record.c - a run folder into the store (store_record): the folder is
 * read through results/ (a folder read back is untrusted: the manifest is
 * checked, JSON read only from regular files), then the run's rows are
 * replaced in one transaction, so recording a run twice (a resume, an
 * import of a run already recorded) leaves one copy of it, and a reader
 * never sees half a run.  A run id the store holds for another run (another
 * folder, another machine) is refused, never replaced.  The manifest says
 * `store.recorded: true` only once the store has committed: a pending
 * record's manifest is rewritten after the commit, and the store keeps the
 * sha256 of that final text (docs/results-format.md, "The results store").
 */
#include "results/results.h"
#include "lib/jsonutil.h"
#include "lib/text.h"
#include "store/store.h"
#include "store/store_db.h"
#include "store/store_key.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
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

/* SYSMETER_TEST_KILL_AT=before_begin|before_commit|after_commit: the
   runner kills itself (SIGKILL) at that point of the record, so that tests
   can see what each moment leaves (tests/542-store-record.bats).  Test
   only; it kills nothing but this process, which anyone may do. */
static void test_kill_at(const char *at)
{
	const char *e = getenv("SYSMETER_TEST_KILL_AT");

	if (e && strcmp(e, at) == 0)
		raise(SIGKILL);
}

/* The manifest as it reads once recorded: a record the run left pending
   (store.recorded false: the run's own record, or one that failed) is
   completed, {where: this store, recorded: true, error: null}; its text,
   malloc'd, in *text, NULL when the manifest stays as it is (recorded by
   its run, or by another store; or run with --no-store: a folder that is
   only imported, perhaps a colleague's, is never written). */
static int final_manifest(struct store *s, json_t *m, const char *mpath, char **text,
			  size_t *len, char *err, size_t errlen)
{
	json_t *st = json_object_get(m, "store");

	*text = NULL;
	if (!json_is_object(st) || !json_is_false(json_object_get(st, "recorded")))
		return 0;
	jsonutil_set(st, "where", jsonutil_text(store_where(s)));
	jsonutil_set(st, "recorded", json_true());
	jsonutil_set(st, "error", json_null());
	*text = results_json_text(m, mpath, len, err, errlen);
	return *text ? 0 : -1;
}

/* Another run under this id already in the store?  The same run is the
   same folder (realpath) on the same machine (fingerprint), or a folder
   moved: same machine and the same manifest (sha256 as the store recorded
   it), elsewhere.  Anything else is another run: refused, so that one run
   never replaces another's rows (a colleague's run imported into a shared
   store).  0, 1 (refused, said in err) or -1. */
static int clash(struct rec *r, const char *dir, const char *fp, const char *sha_now,
		 const char *sha_final)
{
	struct store_result row;
	int rc = 0;

	if (store_db_exec(r->s, "SELECT run_dir, fingerprint, manifest_sha256 FROM runs "
			  "WHERE id = $1", (const char *const[]){r->run_id}, 1, &row, r->err,
			  r->errlen) < 0)
		return -1;
	if (row.nrows && row.ncols == 3) {
		const char *was = row.cell[0] ? row.cell[0] : "(no folder)";
		const char *wfp = row.cell[1] ? row.cell[1] : "(none)", *wsha = row.cell[2];
		int same_machine = strcmp(wfp, fp) == 0;
		int same_folder = row.cell[0] && strcmp(row.cell[0], dir) == 0;
		int moved = wsha && (strcmp(wsha, sha_now) == 0 || strcmp(wsha, sha_final) == 0);

		if (!same_machine || (!same_folder && !moved)) {
			char a[1024], b[1024], id[600];

			text_escape(was, a, sizeof a);
			text_escape(dir, b, sizeof b);
			text_escape(r->run_id, id, sizeof id);
			snprintf(r->err, r->errlen, "%s: run id '%s' is another run's: the store has it "
				 "from %s (machine %s), this one is %s (machine %s); nothing recorded "
				 "(a run id names one run: give this one another with --run-id, or "
				 "record it in another store)", store_where(r->s), id, a, wfp, b, fp);
			rc = 1;
		}
	}
	store_result_free(&row);
	return rc;
}

/* The manifest's final text in place, once the store has committed. */
static int publish(const char *mpath, const char *text, size_t len, struct rec *r)
{
	char why[4600];

	if (results_write_file(mpath, text, len, why, sizeof why) == 0)
		return 0;
	snprintf(r->err, r->errlen, "recorded in %s, but the manifest could not say so (%s): "
		 "`runner store check` names the folder until it is imported again",
		 store_where(r->s), why);
	return -1;
}

int store_record(struct store *s, const char *run_dir, char *err, size_t errlen)
{
	char dir[PATH_MAX], mpath[PATH_MAX + 32], msha[65], fsha[65], fp[32];
	char *text = NULL;
	size_t len = 0;
	int refused = 0;
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
	store_fingerprint(json_object_get(m, "machine"), fp, sizeof fp);
	/* the stored sha256 is the manifest's as it reads after the record:
	   the final text's when the record completes a pending one */
	if (store_sha256_file(mpath, fsha, err, errlen) < 0 ||
	    final_manifest(s, m, mpath, &text, &len, err, errlen) < 0) {
		json_decref(m);
		return -1;
	}
	if (text)
		store_sha256_text(text, len, msha);
	else
		memcpy(msha, fsha, sizeof msha);
	test_kill_at("before_begin");
	if (store_db_begin(s, err, errlen) < 0)
		goto out;
	switch (clash(&r, dir, fp, fsha, msha)) {
	case 0:
		break;
	case 1:
		store_db_rollback(s);
		refused = 1;
		goto out;
	default:
		goto fail;
	}
	if (del_run(&r) < 0 || put_run(&r, m, dir, msha) < 0)
		goto fail;
	json_array_foreach(json_object_get(m, "experiments"), i, x) {
		if (put_experiment(&r, dir, x) < 0)
			goto fail;
	}
	test_kill_at("before_commit");
	if (store_db_commit(s, err, errlen) < 0)
		goto out;
	test_kill_at("after_commit");
	if (text && publish(mpath, text, len, &r) < 0)
		goto out;
	{
		struct store_result cnt;
		const char *p[] = {r.run_id};

		if (store_db_exec(s, "SELECT COUNT(*) FROM points WHERE run_id = $1", p, 1, &cnt, err,
				  errlen) == 0 && cnt.nrows && cnt.cell[0])
			points = strtoul(cnt.cell[0], NULL, 10);
		store_result_free(&cnt);
	}
	free(text);
	json_decref(m);
	return (int)points;
fail:
	store_db_rollback(s);
out:
	free(text);
	json_decref(m);
	return refused ? -2 : -1;
}
