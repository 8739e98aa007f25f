/*
 * store.h - the results store: every run's manifest, machine, experiments,
 * points and round estimates as rows of one database (SQLite, the default
 * out/sysmeter.db, or a shared PostgreSQL given as a postgresql:// URL), so
 * that history and compare can look across runs.  The samples stay in the
 * run's JSON, which each run row points to.
 *
 * It reads run folders only through results/results.h (a folder read back
 * is untrusted input), after the report and before serve in the include
 * order; the engine records a run as it ends, cli's `store`, `history` and
 * `compare --baseline-store` read it.
 */
#ifndef SYSMETER_STORE_H
#define SYSMETER_STORE_H

#include <stddef.h>
#include <jansson.h>
#include <stdio.h>

struct store;

/* A store to write (a run's record, `store import`): where is NULL (the
   default store, out_dir/sysmeter.db, out_dir NULL for out), a file path
   (SQLite: a regular file, created when missing) or a postgresql:// URL;
   the schema created or migrated; one newer than this runner's refused,
   left as it was.  NULL with err. */
struct store *store_open(const char *where, const char *out_dir, char *err, size_t errlen);

/* What store_open_read does with a store that does not exist (no file,
   no schema in it): refuse it, naming where runs record themselves
   (history, store check, compare --baseline-store), or read it as empty
   (a run looking at earlier runs on its machine before it makes it). */
enum store_missing { STORE_MISSING_REFUSED, STORE_MISSING_EMPTY };

/* A store to read only: nothing in it or beside it created or changed
   (SQLite: opened read-only, no journal mode set, so that a store on a
   read-only mount or another user's can be read); an older schema read
   as it is (what it never recorded is NULL), a newer one refused.  The
   same where and out_dir as store_open.  NULL with err. */
struct store *store_open_read(const char *where, const char *out_dir, enum store_missing missing,
			      char *err, size_t errlen);
void store_close(struct store *s);

struct store_query {
	const char *experiment;          /* required */
	const char *const *where;        /* "key=value" parameter filters */
	size_t nwhere;
	const char *host;                /* hostname or fingerprint prefix; NULL: any */
	double since;                    /* unix seconds; 0: all */
};

struct store_row {
	char *run_id, *run_dir, *host, *fingerprint, *kernel, *commit, *status;
	double started;                  /* unix seconds */
	double finished, recorded;       /* unix seconds; NAN when absent */
	char *params_key, *params_json;
	double estimate, ci_lo, ci_hi;   /* NAN when absent */
	double level;                    /* CI level, e.g. 0.95 */
	char *unit, *flags;              /* flags comma-separated, "" when none */
	int n, rounds;
	double *round_est; size_t nround;
	double canary_ns, core_hz;       /* the run's level (store_canary_ns); NAN when absent */
};

/* Rows ordered by params_key, then by run in the store's order of runs
   (started, finished, recorded, id: started and finished are whole
   seconds, so runs of one second are told apart by recorded; a reader
   that mixes keys orders rows with store_row_order).  0, or -1 with err. */
int store_series(struct store *s, const struct store_query *q,
		 struct store_row **rows, size_t *nrows, char *err, size_t errlen);
void store_rows_free(struct store_row *rows, size_t nrows);

/* The store's order of the runs of two rows: <0, 0 (the same run), >0. */
int store_row_order(const struct store_row *a, const struct store_row *b);

/* The names of every experiment with points in the store, sorted: *names
   (each and the array malloc'd), *n of them.  0, or -1 with err. */
int store_experiments(struct store *s, char ***names, size_t *n, char *err, size_t errlen);

/* Record (or re-record: the run's rows replaced in one transaction) the run
   folder run_dir.  The store's run id is one run: the same folder on the
   same machine, or the same manifest moved to another folder on it; any
   other run under that id is refused.  A manifest whose store.recorded is
   false says true (and this store) once the store has committed, and the
   store keeps that final text's sha256.  The number of points recorded;
   -2 when refused (err names both folders; nothing written); -1 with err
   (nothing of the run written, or, when err says so, written but the
   manifest not rewritten). */
int store_record(struct store *s, const char *run_dir, char *err, size_t errlen);

struct store_check_count {
	size_t runs;			/* runs of the store checked */
	size_t differ;			/* of them, those that differ from their folder */
	size_t missing;			/* run folders under runs_dir the store lacks */
	int damaged;			/* a SQLite store's quick_check failed */
};

/* The store against the folders it points to, and (runs_dir not NULL)
   every run folder under runs_dir against the store: each difference as
   a line on out ("RUN: what differs", "FOLDER: not in the store (record
   it with: runner store import [--store IMPORT_STORE] FOLDER)"); a SQLite
   store is read whole first (quick_check).  The number of differences (0:
   all match), or -1 with err. */
int store_check(struct store *s, const char *runs_dir, const char *import_store, FILE *out,
		struct store_check_count *cnt, char *err, size_t errlen);

/* The newest run before run_id on the same machine (fingerprint) that
   measured one of its experiments: 1 with its id and folder (malloc'd),
   0 when there is none, -1 with err. */
int store_baseline(struct store *s, const char *run_id, char **run_dir, char **base_id,
		   char *err, size_t errlen);

/* The store's location for printing and for the manifest: a URL with any
   password removed, or the SQLite file's path. */
const char *store_where(const struct store *s);

/* Any text of a store location made fit to print or record: a URL loses
   its password, anything else is copied.  malloc'd. */
char *store_redacted(const char *where);

/* Is where a URL (any "scheme://": postgresql:// or postgres:// in any
   case; another scheme is refused when opened, never taken for a SQLite
   path)? */
int store_is_url(const char *where);

/* Each point of an experiment's result (as the run writes it) gets its
   `rerun` interval widened by the between-run spread of the same point in
   the newest complete earlier runs (up to 10) on this machine (machine:
   the manifest's; its fingerprint), other than run_id
   (results_point_rerun, stats_between_run_tau: at least 3 runs).
   Returns how many points were widened, or -1 with err. */
int store_rerun_history(struct store *s, json_t *result, const json_t *machine, const char *run_id,
			char *err, size_t errlen);

/* One earlier run's level: the drift check's canary per link of its
   chain (ns), the core clock's median over the run (Hz) and its cross-CPU
   wake-up round trip's median (us), NAN where the run did not measure it. */
struct store_level {
	char run_id[256];
	double started;			/* unix seconds */
	double canary_ns, core_hz, wake_us;
};

/* A run's canary per link (ns) from its manifest's "drift"; NAN when the
   run has none. */
double store_canary_ns(json_t *drift);

/* A run's wake-up round trip (us, drift.wake.median_us); NAN when none. */
double store_wake_us(json_t *drift);

/* The newest complete runs (at most max, and 10) on the machine's
   fingerprint other than run_id that recorded a level, newest first,
   into lv[0..*n).  0, or -1 with err. */
int store_run_levels(struct store *s, const json_t *machine, const char *run_id,
		     struct store_level *lv, size_t max, size_t *n, char *err, size_t errlen);

#endif
