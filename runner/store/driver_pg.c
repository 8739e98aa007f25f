/*
 * driver_pg.c - the store on a PostgreSQL server (--store postgresql://...),
 * through libpq: a lab's or a fleet's runners all write to one.
 *
 * A writer's transaction takes a transaction-level advisory lock first, so
 * that two runners recording the same run (or creating the schema) one
 * after the other never meet on a primary key: the second waits, then sees
 * what the first committed.  It waits as long as a SQLite store's writer
 * does (SYSMETER_STORE_BUSY_MS, default 30 s), trying the lock
 * (pg_try_advisory_xact_lock) between short pauses, and no longer: a lock
 * held by a forgotten psql session must not hold a finished run for ever.
 *
 * Every statement is sent without blocking and waited for in short ticks
 * with SIGINT and SIGTERM blocked: libpq's own wait restarts itself on
 * EINTR, so a Ctrl-C during a lock wait or on a server that stopped
 * answering did nothing.  A signal that comes ends the wait (the statement
 * is abandoned, the connection not used again) and is delivered as the
 * wait returns, to the caller's handler (the engine's: the run says it was
 * interrupted) or its default (the process ends).
 *
 * The URL may carry a password; it never leaves libpq: messages name the
 * store by its URL without it (store.c), and a message of libpq's or the
 * server's that would show it (a password in the user name's place) has
 * it replaced by "***" (store_url.h).
 */
#include "store/store_db.h"
#include "store/store_url.h"
#include "lib/monotonic.h"

#include <libpq-fe.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* any constant both ends agree on: "sysm" */
#define LOCK_KEY "1937334637"
static const char lock_sql[] = "SELECT pg_advisory_xact_lock(" LOCK_KEY ")";
static const char *const begin_pg[] = {"BEGIN", lock_sql, NULL};

/* the wait between two tries of the lock, and the tick of every wait (how
   soon a signal is seen) */
#define LOCK_PAUSE_MS 100
#define TICK_MS 50

struct pg {
	PGconn *c;
	char **secrets;		/* what no message may show (store_url_secrets) */
	int abandoned;		/* a statement was given up: the connection is not used again */
};

enum wait_end { WAIT_DONE, WAIT_FAILED, WAIT_SIGNAL, WAIT_DEADLINE };

/* The busy timeout, as driver_sqlite.c's. */
static int busy_ms(void)
{
	const char *e = getenv("SYSMETER_STORE_BUSY_MS");
	char *end;
	long v = e && *e ? strtol(e, &end, 10) : -1;

	return e && *e && !*end && v >= 0 && v <= 3600000 ? (int)v : 30000;
}

static void say_text(const struct pg *p, const char *msg, char *err, size_t errlen)
{
	size_t n;

	snprintf(err, errlen, "%s", msg && *msg ? msg : "unknown error");
	store_url_hide(err, errlen, p ? p->secrets : NULL);
	n = strlen(err);
	while (n && (err[n - 1] == '\n' || err[n - 1] == ' '))
		err[--n] = 0;
}

static void say(const struct pg *p, char *err, size_t errlen)
{
	say_text(p, p && p->c ? PQerrorMessage(p->c) : "out of memory", err, errlen);
}

static void pg_close(void *conn)
{
	struct pg *p = conn;

	if (!p)
		return;
	PQfinish(p->c);
	store_url_secrets_free(p->secrets);
	free(p);
}

/* Has a SIGINT or SIGTERM come while they are blocked? */
static int stop_pending(void)
{
	sigset_t set;

	return sigpending(&set) == 0 && (sigismember(&set, SIGINT) == 1 ||
					 sigismember(&set, SIGTERM) == 1);
}

/* Block SIGINT and SIGTERM (old gets the mask to restore). */
static void block_stops(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

/* ms until deadline (0: none) or a tick, whichever is sooner */
static int tick(double deadline)
{
	double left = deadline > 0 ? (deadline - monotonic_s()) * 1000 : TICK_MS;

	return left <= 0 ? 0 : left < TICK_MS ? (int)left + 1 : TICK_MS;
}

/* Sleep ms, unless a SIGINT or SIGTERM comes: WAIT_DONE or WAIT_SIGNAL. */
static enum wait_end pause_ms(int ms)
{
	double until = monotonic_s() + ms / 1000.0;
	enum wait_end end = WAIT_DONE;
	sigset_t old;

	block_stops(&old);
	while (monotonic_s() < until) {
		if (stop_pending()) {
			end = WAIT_SIGNAL;
			break;
		}
		poll(NULL, 0, tick(until));
	}
	if (end == WAIT_DONE && stop_pending())
		end = WAIT_SIGNAL;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return end;
}

/* The results of the statement sent, until libpq has no more or deadline
   (monotonic_s(); 0: none) passes or a SIGINT or SIGTERM comes.  *res gets
   the first failed result, else the last one (the caller PQclears it). */
static enum wait_end wait_results(struct pg *p, double deadline, PGresult **res)
{
	enum wait_end end = WAIT_DONE;
	sigset_t old;

	*res = NULL;
	block_stops(&old);
	for (;;) {
		struct pollfd pf = {.fd = PQsocket(p->c), .events = POLLIN};
		PGresult *r;

		if (!PQconsumeInput(p->c)) {
			end = WAIT_FAILED;
			break;
		}
		while (!PQisBusy(p->c) && (r = PQgetResult(p->c))) {
			ExecStatusType st = PQresultStatus(r);
			int failed = *res && PQresultStatus(*res) != PGRES_COMMAND_OK &&
				     PQresultStatus(*res) != PGRES_TUPLES_OK;

			if (failed || st == PGRES_COPY_IN || st == PGRES_COPY_OUT) {
				PQclear(r);
				continue;
			}
			PQclear(*res);
			*res = r;
		}
		if (!PQisBusy(p->c))
			break;
		if (stop_pending()) {
			end = WAIT_SIGNAL;
			break;
		}
		if (deadline > 0 && monotonic_s() >= deadline) {
			end = WAIT_DEADLINE;
			break;
		}
		if (pf.fd < 0) {
			end = WAIT_FAILED;
			break;
		}
		poll(&pf, 1, tick(deadline));
	}
	/* a statement given up is still running on the server, or its answer
	   still on the way: the connection is closed, never reused (a cancel
	   request would be a new connection, which a server that stopped
	   answering would hold up again) */
	if (end == WAIT_SIGNAL || end == WAIT_DEADLINE)
		p->abandoned = 1;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return end;
}

/* One statement with text parameters, or (script) several without: 0
   with its result in *res (the caller PQclears it), or -1 with err.
   deadline: as wait_results'. */
static int run(struct pg *p, const char *sql, const char *const *param, size_t np, int script,
	       double deadline, PGresult **res, char *err, size_t errlen)
{
	int sent;
	enum wait_end end;

	*res = NULL;
	if (p->abandoned) {
		snprintf(err, errlen, "the connection was given up after an earlier statement");
		return -1;
	}
	sent = script ? PQsendQuery(p->c, sql)
		      : PQsendQueryParams(p->c, sql, (int)np, NULL, param, NULL, NULL, 0);
	if (!sent) {
		say(p, err, errlen);
		return -1;
	}
	end = wait_results(p, deadline, res);
	if (end == WAIT_SIGNAL) {
		snprintf(err, errlen, "interrupted while waiting for the server");
	} else if (end == WAIT_DEADLINE) {
		snprintf(err, errlen, "the server did not answer within the busy timeout of %d ms "
			 "(SYSMETER_STORE_BUSY_MS)", busy_ms());
	} else if (end == WAIT_FAILED || !*res) {
		say(p, err, errlen);
	} else if (PQresultStatus(*res) != PGRES_COMMAND_OK &&
		   PQresultStatus(*res) != PGRES_TUPLES_OK) {
		say_text(p, PQresultErrorMessage(*res), err, errlen);
	} else {
		return 0;
	}
	PQclear(*res);
	*res = NULL;
	return -1;
}

/* The writers' lock of the transaction begun, tried until it is free or
   the busy timeout has passed: 0, or -1 with err. */
static int take_lock(struct pg *p, char *err, size_t errlen)
{
	int ms = busy_ms();
	double deadline = monotonic_s() + ms / 1000.0;

	for (;;) {
		PGresult *r;
		int got, left;

		/* a try answers at once; one that does not in a busy timeout of
		   its own is a server that stopped answering */
		if (run(p, "SELECT pg_try_advisory_xact_lock(" LOCK_KEY ")", NULL, 0, 0,
			monotonic_s() + ms / 1000.0 + 1, &r, err, errlen) < 0)
			return -1;
		got = PQntuples(r) == 1 && !strcmp(PQgetvalue(r, 0, 0), "t");
		PQclear(r);
		if (got)
			return 0;
		if (monotonic_s() >= deadline) {
			snprintf(err, errlen, "the store was held by another session for longer than "
				 "the busy timeout of %d ms (SYSMETER_STORE_BUSY_MS): a session holds "
				 "PostgreSQL's advisory lock %s", ms, LOCK_KEY);
			return -1;
		}
		left = (int)((deadline - monotonic_s()) * 1000) + 1;
		if (pause_ms(left < LOCK_PAUSE_MS ? left : LOCK_PAUSE_MS) == WAIT_SIGNAL) {
			snprintf(err, errlen, "interrupted while waiting for the store, held by "
				 "another session");
			return -1;
		}
	}
}

void *store_pg_connect(const char *url, char *err, size_t errlen)
{
	/* a server that never answers must not hold a finished run for ever:
	   10 s unless the URL says otherwise (its own connect_timeout comes
	   later in the list, so it wins) */
	static const char *const keys[] = {"connect_timeout", "dbname", NULL};
	char *conninfo = store_url_conninfo(url, err, errlen);
	const char *vals[] = {"10", conninfo, NULL};
	struct pg *p;
	PGresult *r;

	if (!conninfo)
		return NULL;
	if (!(p = calloc(1, sizeof *p)))
		abort();
	p->secrets = store_url_secrets(conninfo);
	p->c = PQconnectdbParams(keys, vals, 1);
	free(conninfo);
	if (!p->c || PQstatus(p->c) != CONNECTION_OK) {
		say(p, err, errlen);
		pg_close(p);
		return NULL;
	}
	/* no NOTICE lines ("relation already exists, skipping") on stderr */
	if (run(p, "SET client_min_messages = warning", NULL, 0, 0, 0, &r, err, errlen) < 0) {
		pg_close(p);
		return NULL;
	}
	PQclear(r);
	return p;
}

static int pg_exec(void *conn, const char *sql, const char *const *param, size_t np,
		   struct store_result *res, char *err, size_t errlen)
{
	struct pg *p = conn;
	PGresult *r;

	if (res)
		*res = (struct store_result){0};
	if (sql == lock_sql)
		return take_lock(p, err, errlen);
	if (run(p, sql, param, np, 0, 0, &r, err, errlen) < 0)
		return -1;
	if (res && PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0) {
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
	PGresult *r;

	if (run(conn, sql, NULL, 0, 1, 0, &r, err, errlen) < 0)
		return -1;
	PQclear(r);
	return 0;
}

const struct store_driver store_pg_driver = {
	.name = "postgresql", .begin_write = begin_pg, .exec = pg_exec, .script = pg_script,
	.close = pg_close,
};
