/*
 * driver_sqlite.c - the store in a SQLite file (the default,
 * out/sysmeter.db).
 *
 * Two runners may write at once: the file is in WAL mode (readers never
 * block the writer), every writer starts with BEGIN IMMEDIATE (it takes the
 * write lock at once, so two transactions never both read and then deadlock
 * on the upgrade), and a busy timeout makes the second one wait for the
 * first instead of failing.  SYSMETER_STORE_BUSY_MS sets the timeout (tests
 * shorten it to see a locked store refused; default 30 s).
 */
#include "store/store_db.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const begin_sqlite[] = {"BEGIN IMMEDIATE", NULL};

static int busy_ms(void)
{
	const char *e = getenv("SYSMETER_STORE_BUSY_MS");
	char *end;
	long v = e && *e ? strtol(e, &end, 10) : -1;

	return e && *e && !*end && v >= 0 && v <= 3600000 ? (int)v : 30000;
}

/* "file is not a database" is what SQLite says of a corrupt header; say
   what it means for the user. */
static void say(sqlite3 *db, int rc, char *err, size_t errlen)
{
	const char *msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);

	if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT)
		snprintf(err, errlen, "%s (the store is damaged or not a sysmeter store: move it "
			 "away, and `runner store import` the run folders into a new one)", msg);
	else if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
		snprintf(err, errlen, "%s (another process held the store for longer than the "
			 "busy timeout of %d ms)", msg, busy_ms());
	else
		snprintf(err, errlen, "%s", msg);
}

void *store_sqlite_connect(const char *path, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
				 NULL);
	char *msg = NULL;

	if (rc != SQLITE_OK) {
		say(db, rc, err, errlen);
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, busy_ms());
	sqlite3_extended_result_codes(db, 0);
	/* WAL is a property of the file, kept once set; reading the header
	   here is also where a damaged file is found */
	rc = sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON", NULL, NULL, &msg);
	sqlite3_free(msg);
	if (rc != SQLITE_OK) {
		say(db, rc, err, errlen);
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

static int bind_all(sqlite3_stmt *st, const char *const *p, size_t np)
{
	for (size_t i = 0; i < np; i++) {
		char name[16];
		int ix;

		snprintf(name, sizeof name, "$%zu", i + 1);
		ix = sqlite3_bind_parameter_index(st, name);
		if (ix == 0)
			continue;	/* a parameter this statement does not use */
		if (sqlite3_bind_text(st, ix, p[i], p[i] ? -1 : 0, SQLITE_TRANSIENT) != SQLITE_OK)
			return -1;
	}
	return 0;
}

/* A column as text; a REAL with all 17 digits (sqlite's own text has 15). */
static char *column(sqlite3_stmt *st, int c)
{
	char buf[64];

	switch (sqlite3_column_type(st, c)) {
	case SQLITE_NULL:
		return NULL;
	case SQLITE_FLOAT:
		snprintf(buf, sizeof buf, "%.17g", sqlite3_column_double(st, c));
		return strdup(buf);
	default:
		return strdup((const char *)sqlite3_column_text(st, c));
	}
}

static int add_row(sqlite3_stmt *st, struct store_result *res)
{
	size_t nc = (size_t)sqlite3_column_count(st);
	char **cell = realloc(res->cell, (res->nrows + 1) * nc * sizeof *cell);

	if (!cell)
		return -1;
	res->cell = cell;
	res->ncols = nc;
	for (size_t c = 0; c < nc; c++)
		cell[res->nrows * nc + c] = column(st, (int)c);
	res->nrows++;
	return 0;
}

static int sq_exec(void *conn, const char *sql, const char *const *p, size_t np,
		   struct store_result *res, char *err, size_t errlen)
{
	sqlite3 *db = conn;
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

	if (res)
		*res = (struct store_result){0};
	if (rc != SQLITE_OK) {
		say(db, rc, err, errlen);
		return -1;
	}
	if (bind_all(st, p, np) < 0) {
		say(db, sqlite3_errcode(db), err, errlen);
		sqlite3_finalize(st);
		return -1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (res && add_row(st, res) < 0) {
			rc = SQLITE_NOMEM;
			break;
		}
	if (rc != SQLITE_DONE) {
		say(db, rc == SQLITE_NOMEM ? rc : sqlite3_errcode(db), err, errlen);
		sqlite3_finalize(st);
		if (res)
			store_result_free(res);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

static int sq_script(void *conn, const char *sql, char *err, size_t errlen)
{
	char *msg = NULL;
	int rc = sqlite3_exec(conn, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK) {
		if (msg)
			snprintf(err, errlen, "%s", msg);
		else
			say(conn, rc, err, errlen);
	}
	sqlite3_free(msg);
	return rc == SQLITE_OK ? 0 : -1;
}

static void sq_close(void *conn)
{
	sqlite3_close(conn);
}

const struct store_driver store_sqlite_driver = {
	.name = "sqlite", .begin_write = begin_sqlite, .exec = sq_exec, .script = sq_script,
	.close = sq_close,
};
