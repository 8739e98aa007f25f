/*
 * results.h - the results stage (design §5.6, §8): owns the schemas
 * sysmeter.result/1 and sysmeter.manifest/1, building them (experiment.c,
 * analyze.c, manifest.c) and writing them (results.c: atomic writes, JSON
 * numbers that are never NaN, results.csv, run folders and out/latest).
 *
 * The earlier stages' structures are only named here, not defined, so that
 * the report, which reads results files and nothing else, never sees them.
 */
#ifndef SYSMETER_RESULTS_H
#define SYSMETER_RESULTS_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

struct spec;
struct plan_point;
struct loaded_probe;
struct point_result;

/* A JSON number, or null when v is NaN or infinite. */
json_t *results_num(double v);

/* Write to PATH.tmp.<pid> in the same folder, fsync, rename: a crash never
   leaves half a file.  0 or -1 with "PATH: <strerror>" in err. */
int results_write_file(const char *path, const char *data, size_t len, char *err, size_t errlen);
int results_write_json(const char *path, const json_t *j, char *err, size_t errlen);
/* The exact text results_write_json writes for j (a trailing newline),
   malloc'd, its length in *len; NULL with err (path only names it there).
   The store hashes a manifest's final text before writing it. */
char *results_json_text(const json_t *j, const char *path, size_t *len, char *err, size_t errlen);

/* mkdir -p */
int results_mkdirs(const char *path, char *err, size_t errlen);

/* results.csv of a run from its results JSONs (array of result objects). */
int results_write_csv(const char *run_dir, const json_t *results, char *err, size_t errlen);

/* Point DIR/latest at run_id (symlink replaced atomically). */
int results_link_latest(const char *out_dir, const char *run_id, char *err, size_t errlen);

/* Load a JSON file (a regular file of at most 1 GiB); NULL with
   "PATH: <what>" in err.  (run_folder.c) */
json_t *results_load(const char *path, char *err, size_t errlen);

/* A manifest read back is untrusted: check every field report, rerun,
   resume, merge and compare use (types; names without path components;
   each experiment's result file is results/<name>.json).  0, or -1 with
   what is wrong in err.  (run_folder.c) */
int results_manifest_check(const json_t *m, char *err, size_t errlen);

/* run_dir/manifest.json loaded and checked; NULL with "PATH: <what>". */
json_t *results_manifest_read(const char *run_dir, char *err, size_t errlen);

/* --- results/<experiment>.json ------------------------------------------- */

/* A result with no point yet, "status": "running": the experiment, its
   probe (lp NULL: the probe failed to load, its fields are null) and the
   spec as resolved. */
json_t *results_experiment_new(const struct spec *s, const struct loaded_probe *lp,
			       double tsc_hz);

/* The one point of an experiment whose probe did not load. */
json_t *results_failed_point(const char *reason);

/* One point's JSON from the raw samples of its rounds so far (rounds[k] is
   round k; `planned` rounds were planned): outliers, each round's
   estimate, the point's estimate and CI (between rounds when planned >= 2),
   subtraction (same round or propagated), status (ok | partial | failed |
   skipped | timeout | interrupted, with no number unless ok or partial),
   cycles, prediction ratio, reference verdict, sanity flags (level shift,
   drift, modes, suspended outlier rule ...).  Marks the samples'
   round, outlier and (negative durations) valid fields.  deps[i] is the
   result JSON of experiment s->subtract[i] as far as it ran (or NULL when
   it is missing: recorded as a sanity flag). */
json_t *results_point(const struct spec *s, const struct loaded_probe *lp,
		      const struct plan_point *pt, struct point_result *rounds, size_t n_rounds,
		      int planned, double tsc_hz, uint64_t seed, json_t *const *deps);

/* The point's `rerun`: where a rerun's estimate should land, at 95 % -
   interval, level, method, between_run {tau, runs} - from its rounds'
   estimates and what was subtracted (rerun.c).  tau: the between-run
   relative sd a history of this host measured over history_runs runs, or
   NaN for none.  A point with no CI gets a null interval.  0, or -1 when
   memory ran out. */
int results_point_rerun(json_t *point, double tau, size_t history_runs);

/* Evaluate the prediction formulas of a result's points (predict.c): each
   point whose `prediction` has a `formula` gets value, hardware, software
   (the probe's unit), `filled` (each formula with this machine's numbers,
   "150 cycles / 2.99 GHz = 50.2 ns"), `sources` (where each number came
   from: measured, given, table row), `table_row`, `missing` (what it could
   not be evaluated without, else null) and `ratio`.  machine: the
   manifest's machine object; by_name: {experiment: result} of the same run
   (other experiments' estimates, @name).  A run calls it as each
   experiment ends; `runner report` again, from the run's files. */
void results_predict(json_t *result, const json_t *machine, const json_t *by_name);

/* The predict: entry point pt takes (predict_entry.c): the first whose
   where: holds and whose machine: pattern machine_is(pattern, ctx) accepts,
   else the first for any machine; NULL when none applies. */
struct spec_predict;
const struct spec_predict *results_predict_pick(const struct spec *s, const struct plan_point *pt,
						int (*machine_is)(const char *pattern, const void *ctx),
						const void *ctx);

/* The `prediction` object a point records for entry pr: with a formula,
   its texts for results_predict; else the plain value and its ratio to
   est (the point's estimate after subtraction). */
json_t *results_predict_entry(const struct spec_predict *pr, double est);

/* The mitigations machine.vulnerabilities names that run on every kernel
   entry and exit, PTI aside: their names ("Retpolines, swapgs barriers")
   in names and the table's cycles for them summed in *cycles; how many. */
size_t results_entry_mitigations(const json_t *machine, char *names, size_t len, double *cycles);

/* The constants table's row for a machine ("Zen 3", or the generic row's
   name). */
const char *results_predict_row(const json_t *machine);

/* Add `findings` to a finished result (needs machine caches for knees). */
void results_findings(const struct spec *s, json_t *result, const json_t *machine);

/* Experiment status from its points: ok | partial | failed | skipped | interrupted. */
const char *results_status(const json_t *points, int interrupted);

/* The point's params as JSON objects (numbers / strings), and as text. */
json_t *results_params(const struct spec *s, const struct plan_point *pt, int as_text);

/* The file system holding directory dir (filesystem.c), from
   /proc/self/mountinfo: {mount, type, source, options, super_options}
   and, for NFS, client_caches (what the mount options say about the
   client's caches); null when dir is NULL, empty or not found. */
json_t *results_filesystem(const char *dir);
/* The same from another mountinfo file (tests). */
json_t *results_filesystem_in(const char *dir, const char *mountinfo);

/* resume (reload.c): the finished rounds of a saved point (every round
   before the first one recorded "interrupted", which is measured again)
   back as point_results in out[0..cap): samples, placement, warm-up,
   timings, the probe's sanity message.  Returns how many, or -1 with
   the reason in err. */
int results_point_rounds(const json_t *point, const struct loaded_probe *lp,
			 struct point_result *out, size_t cap, char *err, size_t errlen);

/* A saved result's finished rounds (results_point_rounds) into
   rounds[p][0..n_rounds[p]), point by point, for a run that goes on in its
   folder: each saved point must be the plan's point p (same index, same
   values).  Returns how many rounds were kept, or -1 with the reason in err
   (nothing kept).  (reload.c) */
int results_restore_rounds(const json_t *saved, const struct spec *s,
			   const struct loaded_probe *lp, const struct plan_point *pts,
			   size_t n_pts, int planned, struct point_result **rounds,
			   size_t *n_rounds, char *err, size_t errlen);

/* Points of a throughput (bigger is better) swept over `threads` whose N
   threads beat N x the same point with one thread by more than 10 % get
   the sanity flag superlinear_scaling (scaling.c).  Returns how many. */
size_t results_scaling_flags(json_t *result);

/* --- the run folder (folder.c) ------------------------------------------ */

/* A run id: UTC time, `tag` and 6 hex digits of `salt`
   ("20261125T013000Z-1a2b3c", "...Z-merged-1a2b3c"), so ids sort by time
   and two runs started in the same second differ. */
void results_run_id(char *buf, size_t len, const char *tag, uint64_t salt);

/* OUT_DIR/RUN_ID claimed atomically (of two runners given one --run-id,
   exactly one gets it), with results/ and specs/<name>.yaml holding each
   spec's text as given; its path into dir.  0; -EEXIST when the folder
   exists; another negative errno with the message in err. */
int results_folder_create(const char *out_dir, const char *run_id,
			  const struct spec *const *specs, size_t n, char *dir, size_t dirlen,
			  char *err, size_t errlen);

/* DIR/manifest.json and DIR/results/NAME.json, written atomically.  0, or
   -1 with "PATH: <strerror>" in err. */
int results_write_manifest(const char *dir, const json_t *m, char *err, size_t errlen);
int results_write_experiment(const char *dir, const char *name, const json_t *result,
			     char *err, size_t errlen);

/* A run folder's lock (lock.c): held by the runner writing the folder (a
   run, a resume) until it exits, released by the kernel when it dies, so a
   resume never writes into a run that is still going.  Returns an fd to
   close, -1 when another process holds it, -2 on an error (err). */
int results_lock_run(const char *run_dir, char *err, size_t errlen);

/* The kept samples' primary values of a point JSON (for compare). */
size_t results_kept(const json_t *point, double **out);

/* --- manifest.json ------------------------------------------------------- */

/* What the manifest records of the command line. */
struct results_run {
	const char *run_id;
	uint64_t seed;
	int argc; char **argv;
	char *const *sets; size_t n_sets;
	char *const *filters; size_t n_filters;
	int quick;
	const char *probe_dir;
	const char *peer;
	const json_t *origin;		/* rerun: {run, run_id, changes}; NULL otherwise */
	const char *title, *author, *course;	/* the report's front matter (NULL: none) */
};

/* A manifest with "status": "running" and no experiment yet. */
json_t *results_manifest_new(const struct results_run *r, json_t *machine);

/* Append an experiment, "status": "pending", in run order (lp NULL: its
   probe did not load, probe_err says why). */
void results_manifest_add(json_t *m, const struct spec *s, const struct loaded_probe *lp,
			  const char *probe_err);

/* The run's NFS server (--nfs): options.nfs = given (the option as given,
   replayed by rerun), and "nfs": {url, label, local_dir, error}, or null
   when none was asked for. */
void results_manifest_set_nfs(json_t *m, const char *given, const char *url, const char *label,
			      const char *local_dir, const char *error);

/* The manifest's "peer": null without --peer; else {given (--peer as
   given), address (what the probes got, null when none could be had),
   machine (what the peer said it is: serve_parse_info's keys, or null),
   why_not (why there is no machine)}. */
void results_manifest_set_peer(json_t *m, const char *given, const char *address,
			       json_t *machine, const char *why_not);

/* The k-th experiment's status (results_status). */
void results_manifest_set_status(json_t *m, size_t k, const char *status);

/* The run's end: "finished" now, "status" (complete | interrupted), exit code. */
void results_manifest_finish(json_t *m, const char *status, int exit_code);

/* Now as UTC ISO-8601 ("2026-11-23T12:00:00Z"), as manifests record it. */
void results_iso_now(char *buf, size_t len);

/* An experiment status that means it ran to its end: ok, partial, failed,
   skipped (not pending, running or interrupted). */
int results_status_finished(const char *st);

/* "canary 0.92x, core clock 1.16x": the canary_ratio and core_ratio of o
   (the manifest's drift.history, or one of its earlier_off), each where
   measured ("" when neither), into buf. */
const char *results_level_ratios(const json_t *o, char *buf, size_t len);

/* "threshold 10 %", and ", 15 % for the cross-CPU wake-up" when the run
   compared its wake-up: the bands the level check used, into buf. */
const char *results_level_bands(const json_t *o, char *buf, size_t len);

#endif
