/*
 * store.c - a store opened (store.h): which driver, where, the schema
 * brought up to date for a writer, read as it is for a reader.
 *
 * A SQLite store is a regular file: a FIFO, a device or a folder is refused
 * by stat before SQLite opens it (SQLite would block on a FIFO, and make
 * /dev/null-journal beside /dev/null).  A writer may create the file; a
 * reader never does.
 */
#include "store/store.h"
#include "store/store_db.h"
#include "store/store_key.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *kind_of(mode_t m)
{
	return S_ISDIR(m) ? "a folder" : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
	       : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

/* The SQLite file at path: 1 a regular file, 0 none there, -1 refused
   (said in err). */
static int sqlite_file(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: %s, not a store: a SQLite store is a regular file (or "
			 "give a postgresql:// URL)", path, kind_of(st.st_mode));
		return -1;
	}
	return 1;
}

static struct store *store_new(const char *where, const struct store_driver *drv)
{
	struct store *s = calloc(1, sizeof *s);

	if (!s || !(s->where = store_is_url(where) ? store_redact_url(where) : strdup(where)))
		abort();
	s->drv = drv;
	return s;
}

/* The driver's connection, or NULL with "WHERE: why" in err. */
static int attach(struct store *s, const char *where, int readonly, char *err, size_t errlen)
{
	s->conn = s->drv == &store_pg_driver ? store_pg_connect(where, err, errlen)
					     : store_sqlite_connect(where, readonly, err, errlen);
	if (!s->conn) {
		char why[1024];

		snprintf(why, sizeof why, "%s", err);
		snprintf(err, errlen, "%s: %s", s->where, why);
		return -1;
	}
	return 0;
}

struct store *store_open(const char *where, const char *out_dir, char *err, size_t errlen)
{
	char path[4200];
	struct store *s;

	if (!where || !*where) {
		snprintf(path, sizeof path, "%s/sysmeter.db", out_dir && *out_dir ? out_dir : "out");
		where = path;
	}
	if (!store_is_url(where) && sqlite_file(where, err, errlen) < 0)
		return NULL;
	s = store_new(where, store_is_url(where) ? &store_pg_driver : &store_sqlite_driver);
	if (attach(s, where, 0, err, errlen) < 0 || store_schema_ensure(s, err, errlen) < 0) {
		store_close(s);
		return NULL;
	}
	return s;
}

/* An empty store in memory with the current schema, named where: what a
   store that does not exist yet reads as for a run about to make it. */
static struct store *empty_store(const char *where, char *err, size_t errlen)
{
	struct store *s = store_new(where, &store_sqlite_driver);

	if (attach(s, ":memory:", 0, err, errlen) < 0 || store_schema_ensure(s, err, errlen) < 0) {
		store_close(s);
		return NULL;
	}
	return s;
}

static struct store *none_there(const char *where, const char *out_dir, const char *why,
				char *err, size_t errlen)
{
	char *shown = store_redacted(where);

	snprintf(err, errlen, "no store at %s: %s (runs record themselves into "
		 "%s/sysmeter.db; --store names another)", shown ? shown : "?", why,
		 out_dir && *out_dir ? out_dir : "out");
	free(shown);
	return NULL;
}

struct store *store_open_read(const char *where, const char *out_dir, enum store_missing missing,
			      char *err, size_t errlen)
{
	char path[4200];
	struct store *s;
	int r;

	if (!where || !*where) {
		snprintf(path, sizeof path, "%s/sysmeter.db", out_dir && *out_dir ? out_dir : "out");
		where = path;
	}
	if (!store_is_url(where) && (r = sqlite_file(where, err, errlen)) <= 0) {
		if (r < 0)
			return NULL;
		return missing == STORE_MISSING_EMPTY ? empty_store(where, err, errlen)
			: none_there(where, out_dir, strerror(ENOENT), err, errlen);
	}
	s = store_new(where, store_is_url(where) ? &store_pg_driver : &store_sqlite_driver);
	if (attach(s, where, 1, err, errlen) < 0 || (r = store_schema_read(s, err, errlen)) < 0) {
		store_close(s);
		return NULL;
	}
	if (r == 1) {		/* no schema: nothing was ever recorded there */
		store_close(s);
		return missing == STORE_MISSING_EMPTY ? empty_store(where, err, errlen)
			: none_there(where, out_dir, "nothing was ever recorded in it", err, errlen);
	}
	return s;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	if (s->conn)
		s->drv->close(s->conn);
	free(s->where);
	free(s);
}

const char *store_where(const struct store *s)
{
	return s->where;
}

char *store_redacted(const char *where)
{
	if (store_is_url(where))
		return store_redact_url(where);
	return strdup(where);
}
