/*
 * store_db.h - the store's driver interface (private to store/): one SQL
 * text for both databases, parameters $1..$n passed as text (NULL: SQL
 * NULL), rows read back as text.  SQLite converts text bound to a REAL or
 * INTEGER column by its affinity, PostgreSQL by the column's type, so the
 * statements need no per-driver casts.  One file per driver.
 */
#ifndef SYSMETER_STORE_DB_H
#define SYSMETER_STORE_DB_H

#include <stddef.h>

/* Rows of a query: cell[r * ncols + c], NULL for SQL NULL. */
struct store_result {
	size_t nrows, ncols;
	char **cell;
};

struct store_driver {
	const char *name;		/* "sqlite", "postgresql" */
	/* Statements that open a writing transaction that no other writer
	   can enter until it ends (SQLite: BEGIN IMMEDIATE, which waits out
	   the busy timeout; PostgreSQL: BEGIN and a transaction lock). */
	const char *const *begin_write;
	/* One statement with text parameters; rows into res when res is not
	   NULL.  0, or -1 with the database's message in err. */
	int (*exec)(void *conn, const char *sql, const char *const *p, size_t np,
		    struct store_result *res, char *err, size_t errlen);
	/* Several statements, no parameters (the schema). */
	int (*script)(void *conn, const char *sql, char *err, size_t errlen);
	void (*close)(void *conn);
	/* Before a writer's first write, once the store's version is known
	   to be one it may write (SQLite: the file switched to WAL), so that a
	   store refused is left as it was; NULL: nothing to do. */
	int (*prepare_write)(void *conn, char *err, size_t errlen);
};

extern const struct store_driver store_sqlite_driver;
extern const struct store_driver store_pg_driver;

/* A connection, or NULL with the reason in err (driver_sqlite.c,
   driver_pg.c).  readonly: a reader's (SQLite: opened read-only, nothing
   set on the file; the file must exist). */
void *store_sqlite_connect(const char *path, int readonly, char *err, size_t errlen);
void *store_pg_connect(const char *url, char *err, size_t errlen);

struct store {
	const struct store_driver *drv;
	void *conn;
	char *where;			/* the path, or the URL with no password */
};

/* The same, with "WHERE: " before the database's message (store_db.c). */
int store_db_exec(struct store *s, const char *sql, const char *const *p, size_t np,
		  struct store_result *res, char *err, size_t errlen);
int store_db_script(struct store *s, const char *sql, char *err, size_t errlen);
int store_db_prepare_write(struct store *s, char *err, size_t errlen);
int store_db_begin(struct store *s, char *err, size_t errlen);
int store_db_commit(struct store *s, char *err, size_t errlen);
void store_db_rollback(struct store *s);
void store_result_free(struct store_result *r);

/* The schema brought to the current version (schema.c): created in an
   empty store, migrated from an older one in one transaction, refused when
   newer than this runner knows (and then left as it was: its version is
   read before anything is written).  0, or -1 with err. */
int store_schema_ensure(struct store *s, char *err, size_t errlen);

/* The schema read as it is, for a reader that writes nothing (schema.c):
   refused when newer than this runner knows; an older one is read through
   temporary views that give what it never recorded as NULL.  0; 1 when
   the store has no schema at all (nothing was ever recorded in it); -1
   with err. */
int store_schema_read(struct store *s, char *err, size_t errlen);

#endif
