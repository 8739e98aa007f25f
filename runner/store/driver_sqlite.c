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
 *
 * SQLite does not always wait: while writers start a store together (one
 * switching it to WAL, another creating the schema) it may return BUSY at
 * once, to avoid a deadlock, without calling the busy handler.  So a
 * statement outside a transaction that gets BUSY is tried again, after a
 * short pause, until the busy timeout has passed on the monotonic clock;
 * and the message says whether the store was waited for or not.
 *
 * A reader opens the file read-only: no journal mode set, nothing created
 * but the -shm and -wal files SQLite itself needs beside a WAL store (and
 * not even those in a folder it may not write: the file is then read as
 * immutable, when no -wal holds changes not yet in it).
 */
#include "lib/monotonic.h"
#include "store/store_db.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const begin_sqlite[] = {"BEGIN IMMEDIATE", NULL};

static int busy_ms(void)
{
	const char *e = getenv("SYSMETER_STORE_BUSY_MS");
	char *end;
	long v = e && *e ? strtol(e, &end, 10) : -1;

	return e && *e && !*end && v >= 0 && v <= 3600000 ? (int)v : 30000;
}

/* A failure as SQLite reported it: its code, its text, the OS's errno. */
struct failure {
	int rc;
	int sys_errno;
	char msg[512];
};

static void failed(sqlite3 *db, int rc, struct failure *f)
{
	f->rc = rc;
	f->sys_errno = db ? sqlite3_system_errno(db) : 0;
	snprintf(f->msg, sizeof f->msg, "%s", db && rc != SQLITE_NOMEM ? sqlite3_errmsg(db)
							: sqlite3_errstr(rc));
}

/* Codes whose text ("disk I/O error", "unable to open database file")
   hides the cause the OS gave. */
static int os_said(int rc)
{
	switch (rc) {
	case SQLITE_IOERR: case SQLITE_FULL: case SQLITE_CANTOPEN: case SQLITE_READONLY:
	case SQLITE_PERM: case SQLITE_NOLFS: case SQLITE_PROTOCOL:
		return 1;
	default:
		return 0;
	}
}

/* "file is not a database" is what SQLite says of a corrupt header; say
   what it means for the user.  waited: seconds the statement was tried. */
static void say(const struct failure *f, double waited, char *err, size_t errlen)
{
	int rc = f->rc & 0xff;

	if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT)
		snprintf(err, errlen, "%s (the store is damaged or not a sysmeter store: move it "
			 "away, and `runner store import` the run folders into a new one)", f->msg);
	else if ((rc == SQLITE_BUSY || rc == SQLITE_LOCKED) && waited * 1000 >= 0.9 * busy_ms())
		snprintf(err, errlen, "%s (another process held the store for longer than the "
			 "busy timeout of %d ms)", f->msg, busy_ms());
	else if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
		snprintf(err, errlen, "%s (SQLite gave up at once after %.0f ms, without waiting "
			 "out the busy timeout of %d ms: another process was changing the store "
			 "in the middle of this transaction)", f->msg, waited * 1000, busy_ms());
	else if (os_said(rc) && f->sys_errno)
		snprintf(err, errlen, "%s (%s)", f->msg, strerror(f->sys_errno));
	else
		snprintf(err, errlen, "%s", f->msg);
}

/* A short pause before trying again: doubling from 1 ms to 64 ms, with a
   part that differs between processes so that they do not meet again. */
static void pause_for(unsigned *step)
{
	long ms = (1L << (*step < 6 ? *step : 6)) + (long)((unsigned)getpid() % 7);
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L};

	(*step)++;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
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

/* The statement once: SQLITE_OK, or the failure in f (res emptied). */
static int exec_once(sqlite3 *db, const char *sql, const char *const *p, size_t np,
		     struct store_result *res, struct failure *f)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

	if (res)
		*res = (struct store_result){0};
	if (rc != SQLITE_OK) {
		failed(db, rc, f);
		return rc;
	}
	if (bind_all(st, p, np) < 0) {
		failed(db, rc = sqlite3_errcode(db), f);
		sqlite3_finalize(st);
		return rc;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (res && add_row(st, res) < 0) {
			rc = SQLITE_NOMEM;
			break;
		}
	if (rc != SQLITE_DONE) {
		failed(db, rc == SQLITE_NOMEM ? rc : sqlite3_errcode(db), f);
		rc = f->rc;
		sqlite3_finalize(st);
		if (res)
			store_result_free(res);
		return rc ? rc : SQLITE_ERROR;
	}
	sqlite3_finalize(st);
	return SQLITE_OK;
}

static int sq_exec(void *conn, const char *sql, const char *const *p, size_t np,
		   struct store_result *res, char *err, size_t errlen)
{
	sqlite3 *db = conn;
	double t0 = monotonic_s(), waited;
	unsigned step = 0;
	struct failure f;
	int rc;

	/* BUSY outside a transaction (BEGIN IMMEDIATE, a PRAGMA, a read) is
	   tried again until the busy timeout has passed; inside one the
	   caller rolls back */
	while ((rc = exec_once(db, sql, p, np, res, &f)) != SQLITE_OK) {
		waited = monotonic_s() - t0;
		if ((rc & 0xff) != SQLITE_BUSY || !sqlite3_get_autocommit(db) ||
		    waited * 1000 >= busy_ms()) {
			say(&f, waited, err, errlen);
			return -1;
		}
		pause_for(&step);
	}
	return 0;
}

static int sq_script(void *conn, const char *sql, char *err, size_t errlen)
{
	char *msg = NULL;
	int rc = sqlite3_exec(conn, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK) {
		struct failure f;

		failed(conn, rc, &f);
		if (msg)
			snprintf(f.msg, sizeof f.msg, "%s", msg);
		say(&f, 0, err, errlen);
	}
	sqlite3_free(msg);
	return rc == SQLITE_OK ? 0 : -1;
}

/* WAL is a property of the file, kept once set: set only once the store's
   version is known to be one this runner may write (a store refused is
   left as it was, its journal mode too). */
static int sq_prepare_write(void *conn, char *err, size_t errlen)
{
	return sq_exec(conn, "PRAGMA journal_mode=WAL", NULL, 0, NULL, err, errlen) < 0 ||
	       sq_exec(conn, "PRAGMA foreign_keys=ON", NULL, 0, NULL, err, errlen) < 0 ? -1 : 0;
}

static void sq_close(void *conn)
{
	sqlite3_close(conn);
}

const struct store_driver store_sqlite_driver = {
	.name = "sqlite", .begin_write = begin_sqlite, .exec = sq_exec, .script = sq_script,
	.close = sq_close, .prepare_write = sq_prepare_write,
};

/* "file:PATH?QUERY" with every byte of PATH that is not plainly safe as
   %XX (a '?' or '#' in a file name stays part of it). */
static char *uri_of(const char *path, const char *query)
{
	size_t n = strlen(path);
	char *u = malloc(3 * n + strlen(query) + 16), *w = u;

	if (!u)
		return NULL;
	w += sprintf(w, "file:%s", path[0] == '/' ? "//" : "");
	for (const unsigned char *c = (const unsigned char *)path; *c; c++)
		if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		    (*c >= '0' && *c <= '9') || strchr("/._-~", *c))
			*w++ = (char)*c;
		else
			w += sprintf(w, "%%%02X", *c);
	sprintf(w, "?%s", query);
	return u;
}

static sqlite3 *open_uri(const char *path, const char *query, struct failure *f)
{
	char *uri = uri_of(path, query);
	sqlite3 *db = NULL;
	int rc;

	if (!uri) {
		failed(NULL, SQLITE_NOMEM, f);
		return NULL;
	}
	rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
	free(uri);
	if (rc == SQLITE_OK) {
		sqlite3_busy_timeout(db, busy_ms());
		rc = sqlite3_exec(db, "SELECT COUNT(*) FROM sqlite_master", NULL, NULL, NULL);
	}
	if (rc != SQLITE_OK) {
		failed(db, sqlite3_extended_errcode(db), f);
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

/* Has PATH-wal changes in it (a size above 0)? */
static int wal_pending(const char *path)
{
	char wal[4200];
	struct stat st;

	snprintf(wal, sizeof wal, "%s-wal", path);
	return stat(wal, &st) == 0 && st.st_size > 0;
}

static sqlite3 *connect_ro(const char *path, char *err, size_t errlen)
{
	struct failure f;
	sqlite3 *db;
	int rc;

	if ((db = open_uri(path, "mode=ro", &f)))
		return db;
	rc = f.rc & 0xff;
	/* a WAL store whose -shm this user cannot make (a read-only folder,
	   another user's store): with nothing in a -wal, the file alone is
	   the whole store and is read as it stands */
	if ((rc == SQLITE_READONLY || rc == SQLITE_CANTOPEN) && !wal_pending(path)) {
		if ((db = open_uri(path, "mode=ro&immutable=1", &f)))
			return db;
	} else if (rc == SQLITE_READONLY || rc == SQLITE_CANTOPEN) {
		snprintf(err, errlen, "%s (its -wal holds changes not yet in the file and its -shm "
			 "cannot be made here: let a writer of the folder open it once)", f.msg);
		return NULL;
	}
	say(&f, 0, err, errlen);
	return NULL;
}

void *store_sqlite_connect(const char *path, int readonly, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	int rc;

	if (readonly)
		db = connect_ro(path, err, errlen);
	else if ((rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
				       NULL)) != SQLITE_OK) {
		struct failure f;

		failed(db, rc, &f);
		say(&f, 0, err, errlen);
		sqlite3_close(db);
		return NULL;
	}
	if (!db)
		return NULL;
	sqlite3_busy_timeout(db, busy_ms());
	sqlite3_extended_result_codes(db, 0);
	return db;
}
