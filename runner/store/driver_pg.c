/*
 * driver_pg.c - the store on a PostgreSQL server (--store postgresql://...),
 * through libpq: a lab's or a fleet's runners all write to one.
 *
 * A writer's transaction takes a transaction-level advisory lock first, so
 * that two runners recording the same run (or creating the schema) one
 * after the other never meet on a primary key: the second waits, then sees
 * what the first committed.  The URL may carry a password; it never leaves
 * libpq (messages name the store by its URL without it, store.c).
 */
#include "store/store_db.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* any constant both ends agree on: "sysm" */
static const char *const begin_pg[] = {"BEGIN", "SELECT pg_advisory_xact_lock(1937334637)", NULL};

static void say(PGconn *c, char *err, size_t errlen)
{
	char *msg = c ? PQerrorMessage(c) : "out of memory";
	size_t n;

	snprintf(err, errlen, "%s", msg && *msg ? msg : "unknown error");
	n = strlen(err);
	while (n && (err[n - 1] == '\n' || err[n - 1] == ' '))
		err[--n] = 0;
}

void *store_pg_connect(const char *url, char *err, size_t errlen)
{
	/* a server that never answers must not hold a finished run for ever:
	   10 s unless the URL says otherwise (its own connect_timeout comes
	   later in the list, so it wins) */
	static const char *const keys[] = {"connect_timeout", "dbname", NULL};
	const char *const vals[] = {"10", url, NULL};
	PGconn *c = PQconnectdbParams(keys, vals, 1);
	PGresult *r;

	if (!c || PQstatus(c) != CONNECTION_OK) {
		say(c, err, errlen);
		PQfinish(c);
		return NULL;
	}
	/* no NOTICE lines ("relation already exists, skipping") on stderr */
	r = PQexec(c, "SET client_min_messages = warning");
	PQclear(r);
	return c;
}

static int pg_exec(void *conn, const char *sql, const char *const *p, size_t np,
		   struct store_result *res, char *err, size_t errlen)
{
	PGresult *r = PQexecParams(conn, sql, (int)np, NULL, p, NULL, NULL, 0);
	ExecStatusType st = PQresultStatus(r);

	if (res)
		*res = (struct store_result){0};
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		say(conn, err, errlen);
		PQclear(r);
		return -1;
	}
	if (res && st == PGRES_TUPLES_OK && PQntuples(r) > 0) {
		size_t nr = (size_t)PQntuples(r), nc = (size_t)PQnfields(r);

		res->cell = calloc(nr * nc, sizeof *res->cell);
		if (!res->cell) {
			snprintf(err, errlen, "out of memory");
			PQclear(r);
			return -1;
		}
		res->nrows = nr;
		res->ncols = nc;
		for (size_t i = 0; i < nr; i++)
			for (size_t c = 0; c < nc; c++)
				if (!PQgetisnull(r, (int)i, (int)c))
					res->cell[i * nc + c] = strdup(PQgetvalue(r, (int)i, (int)c));
	}
	PQclear(r);
	return 0;
}

static int pg_script(void *conn, const char *sql, char *err, size_t errlen)
{
	PGresult *r = PQexec(conn, sql);
	ExecStatusType st = PQresultStatus(r);

	PQclear(r);
	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
		return 0;
	say(conn, err, errlen);
	return -1;
}

static void pg_close(void *conn)
{
	PQfinish(conn);
}

const struct store_driver store_pg_driver = {
	.name = "postgresql", .begin_write = begin_pg, .exec = pg_exec, .script = pg_script,
	.close = pg_close,
};
