/*
 * schema.c - the store's schema and its migrations (docs/results-format.md,
 * "The results store").  One SQL text for SQLite and PostgreSQL: TEXT,
 * INTEGER, BIGINT and DOUBLE PRECISION mean the same to both.
 *
 * Versions: 1 had no round estimates and no CI level (its points could not
 * say how sure they were); 2 adds them; 3 adds each run's level (the drift
 * check's canary per link and the core clock), which a later run on the
 * same machine compares itself with (store_run_levels); 4 adds its cross-CPU
 * wake-up.  A store of an older version is migrated in the transaction
 * that a writer opens it with; old rows keep NULL for what they never
 * recorded until `runner store import` records their run again.  A reader
 * never migrates: it reads an older store through temporary views
 * (read_older: a new version adds its columns there too).  A store of a
 * newer version than this runner knows is refused, never written: its
 * version is read before anything else is done to it.
 */
#include "store/store_db.h"

#include <stdio.h>
#include <stdlib.h>

#define STORE_SCHEMA_VERSION 4

static const char schema_v3[] =
	"CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);\n"
	"CREATE TABLE IF NOT EXISTS machines (\n"
	"  fingerprint TEXT PRIMARY KEY, hostname TEXT, facts TEXT NOT NULL);\n"
	"CREATE TABLE IF NOT EXISTS runs (\n"
	"  id TEXT PRIMARY KEY, started DOUBLE PRECISION, finished DOUBLE PRECISION,\n"
	"  fingerprint TEXT, hostname TEXT, kernel TEXT, git_commit TEXT, runner_version TEXT,\n"
	"  seed TEXT, options TEXT, status TEXT, exit_code INTEGER, run_dir TEXT NOT NULL,\n"
	"  manifest_sha256 TEXT, recorded DOUBLE PRECISION,\n"
	"  canary_ns DOUBLE PRECISION, core_hz DOUBLE PRECISION, wake_us DOUBLE PRECISION);\n"
	"CREATE TABLE IF NOT EXISTS experiments (\n"
	"  name TEXT NOT NULL, spec_sha256 TEXT NOT NULL, PRIMARY KEY (name, spec_sha256));\n"
	"CREATE TABLE IF NOT EXISTS run_experiments (\n"
	"  run_id TEXT NOT NULL, experiment TEXT NOT NULL, spec_sha256 TEXT, status TEXT,\n"
	"  unit TEXT, result_sha256 TEXT, n_points INTEGER, PRIMARY KEY (run_id, experiment));\n"
	"CREATE TABLE IF NOT EXISTS points (\n"
	"  run_id TEXT NOT NULL, experiment TEXT NOT NULL, idx INTEGER NOT NULL,\n"
	"  params_json TEXT, params_key TEXT NOT NULL, status TEXT,\n"
	"  estimate DOUBLE PRECISION, ci_lo DOUBLE PRECISION, ci_hi DOUBLE PRECISION,\n"
	"  ci_level DOUBLE PRECISION, unit TEXT, n INTEGER, rounds INTEGER, flags TEXT,\n"
	"  prediction DOUBLE PRECISION, PRIMARY KEY (run_id, experiment, idx));\n"
	"CREATE TABLE IF NOT EXISTS round_estimates (\n"
	"  run_id TEXT NOT NULL, experiment TEXT NOT NULL, idx INTEGER NOT NULL,\n"
	"  round INTEGER NOT NULL, estimate DOUBLE PRECISION,\n"
	"  PRIMARY KEY (run_id, experiment, idx, round));\n"
	"CREATE INDEX IF NOT EXISTS points_series ON points (experiment, params_key);\n"
	"CREATE INDEX IF NOT EXISTS runs_host ON runs (fingerprint, started);\n";

/* version 1 -> 2 */
static const char migrate_1_2[] =
	"ALTER TABLE points ADD COLUMN ci_level DOUBLE PRECISION;\n"
	"CREATE TABLE round_estimates (\n"
	"  run_id TEXT NOT NULL, experiment TEXT NOT NULL, idx INTEGER NOT NULL,\n"
	"  round INTEGER NOT NULL, estimate DOUBLE PRECISION,\n"
	"  PRIMARY KEY (run_id, experiment, idx, round));\n";

/* version 2 -> 3 */
static const char migrate_2_3[] =
	"ALTER TABLE runs ADD COLUMN canary_ns DOUBLE PRECISION;\n"
	"ALTER TABLE runs ADD COLUMN core_hz DOUBLE PRECISION;\n";

/* version 3 -> 4 */
static const char migrate_3_4[] =
	"ALTER TABLE runs ADD COLUMN wake_us DOUBLE PRECISION;\n";

static const char *const migrations[STORE_SCHEMA_VERSION + 1] = {
	[1] = migrate_1_2,	/* migrations[v]: from v to v + 1 */
	[2] = migrate_2_3,
	[3] = migrate_3_4,
};

/* The version recorded, read without writing anything: 0 for a store
   with no schema yet (a new file, an empty database); -1 with err. */
static int stored_version(struct store *s, char *err, size_t errlen)
{
	static const char sqlite_has[] = "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' "
					 "AND name = 'schema_version'";
	static const char pg_has[] = "SELECT COUNT(*) FROM information_schema.tables WHERE "
				     "table_name = 'schema_version' AND table_schema = current_schema()";
	struct store_result r;
	int v;

	if (store_db_exec(s, s->drv == &store_sqlite_driver ? sqlite_has : pg_has, NULL, 0, &r,
			  err, errlen) < 0)
		return -1;
	v = r.nrows && r.cell[0] ? atoi(r.cell[0]) : 0;
	store_result_free(&r);
	if (v == 0)
		return 0;
	if (store_db_exec(s, "SELECT MAX(version) FROM schema_version", NULL, 0, &r, err,
			  errlen) < 0)
		return -1;
	v = r.nrows && r.cell[0] ? atoi(r.cell[0]) : 0;
	store_result_free(&r);
	return v;
}

/* The version, under the write lock: the table made if missing. */
static int version_of(struct store *s, char *err, size_t errlen)
{
	if (store_db_exec(s, "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)",
			  NULL, 0, NULL, err, errlen) < 0)
		return -1;
	return stored_version(s, err, errlen);
}

static int newer(struct store *s, int v, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: schema version %d is newer than this runner's (%d): use a "
		 "newer runner, or another store", s->where, v, STORE_SCHEMA_VERSION);
	return -1;
}

static int set_version(struct store *s, char *err, size_t errlen)
{
	char v[16];
	const char *p[] = {v};

	snprintf(v, sizeof v, "%d", STORE_SCHEMA_VERSION);
	return store_db_exec(s, "DELETE FROM schema_version", NULL, 0, NULL, err, errlen) < 0 ||
	       store_db_exec(s, "INSERT INTO schema_version (version) VALUES ($1)", p, 1, NULL, err,
			     errlen) < 0 ? -1 : 0;
}

static int ensure_in_tx(struct store *s, char *err, size_t errlen)
{
	int v = version_of(s, err, errlen);

	if (v < 0)
		return -1;
	if (v > STORE_SCHEMA_VERSION)
		return newer(s, v, err, errlen);
	if (v == STORE_SCHEMA_VERSION)
		return 0;
	if (v == 0)
		return store_db_script(s, schema_v3, err, errlen) < 0 ? -1 : set_version(s, err, errlen);
	for (; v < STORE_SCHEMA_VERSION; v++)
		if (!migrations[v] || store_db_script(s, migrations[v], err, errlen) < 0) {
			if (!migrations[v])
				snprintf(err, errlen, "%s: no migration from schema version %d",
					 s->where, v);
			return -1;
		}
	return set_version(s, err, errlen);
}

int store_schema_ensure(struct store *s, char *err, size_t errlen)
{
	/* read first, without taking the write lock or changing the file:
	   a newer store is refused as it was found */
	int v = stored_version(s, err, errlen);

	if (v < 0)
		return -1;
	if (v > STORE_SCHEMA_VERSION)
		return newer(s, v, err, errlen);
	if (store_db_prepare_write(s, err, errlen) < 0)
		return -1;
	if (v == STORE_SCHEMA_VERSION)
		return 0;
	/* anything else (no schema yet, an old version) is decided again
	   under the write lock: another writer may have got there first */
	if (store_db_begin(s, err, errlen) < 0)
		return -1;
	if (ensure_in_tx(s, err, errlen) < 0) {
		store_db_rollback(s);
		return -1;
	}
	return store_db_commit(s, err, errlen);
}

/* An older store read as the current one by a reader that may not migrate
   it: a temporary view in front of each table that lacks columns (both
   databases look in the temporary schema first), with NULL for what the
   store never recorded, and an empty temporary round_estimates. */
static int read_older(struct store *s, int v, char *err, size_t errlen)
{
	static const char null[] = "CAST(NULL AS DOUBLE PRECISION)";
	const char *in = s->drv == &store_sqlite_driver ? "main." : "";
	char sql[1024];

	if (v < 2) {
		snprintf(sql, sizeof sql, "CREATE TEMP VIEW points AS SELECT *, %s AS ci_level "
			 "FROM %spoints", null, in);
		if (store_db_exec(s, sql, NULL, 0, NULL, err, errlen) < 0 ||
		    store_db_exec(s, "CREATE TEMP TABLE round_estimates (run_id TEXT NOT NULL, "
				  "experiment TEXT NOT NULL, idx INTEGER NOT NULL, round INTEGER "
				  "NOT NULL, estimate DOUBLE PRECISION)", NULL, 0, NULL, err,
				  errlen) < 0)
			return -1;
	}
	if (v < 3)
		snprintf(sql, sizeof sql, "CREATE TEMP VIEW runs AS SELECT *, %s AS canary_ns, "
			 "%s AS core_hz, %s AS wake_us FROM %sruns", null, null, null, in);
	else
		snprintf(sql, sizeof sql, "CREATE TEMP VIEW runs AS SELECT *, %s AS wake_us FROM "
			 "%sruns", null, in);
	return store_db_exec(s, sql, NULL, 0, NULL, err, errlen);
}

int store_schema_read(struct store *s, char *err, size_t errlen)
{
	int v = stored_version(s, err, errlen);

	if (v < 0)
		return -1;
	if (v == 0)
		return 1;
	if (v > STORE_SCHEMA_VERSION)
		return newer(s, v, err, errlen);
	if (v < STORE_SCHEMA_VERSION && read_older(s, v, err, errlen) < 0)
		return -1;
	return 0;
}
