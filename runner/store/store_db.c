/*
 * store_db.c - the calls every store file makes into its driver, with the
 * store's location before the database's message, and transactions.
 */
#include "store/store_db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void prefix(const struct store *s, char *err, size_t errlen)
{
	char why[1024];

	snprintf(why, sizeof why, "%s", err);
	snprintf(err, errlen, "%s: %s", s->where, why);
}

int store_db_exec(struct store *s, const char *sql, const char *const *p, size_t np,
		  struct store_result *res, char *err, size_t errlen)
{
	if (s->drv->exec(s->conn, sql, p, np, res, err, errlen) == 0)
		return 0;
	prefix(s, err, errlen);
	return -1;
}

int store_db_script(struct store *s, const char *sql, char *err, size_t errlen)
{
	if (s->drv->script(s->conn, sql, err, errlen) == 0)
		return 0;
	prefix(s, err, errlen);
	return -1;
}

int store_db_prepare_write(struct store *s, char *err, size_t errlen)
{
	if (!s->drv->prepare_write || s->drv->prepare_write(s->conn, err, errlen) == 0)
		return 0;
	prefix(s, err, errlen);
	return -1;
}

int store_db_begin(struct store *s, char *err, size_t errlen)
{
	for (const char *const *q = s->drv->begin_write; *q; q++)
		if (store_db_exec(s, *q, NULL, 0, NULL, err, errlen) < 0) {
			if (q != s->drv->begin_write)
				store_db_rollback(s);
			return -1;
		}
	return 0;
}

int store_db_commit(struct store *s, char *err, size_t errlen)
{
	if (store_db_exec(s, "COMMIT", NULL, 0, NULL, err, errlen) == 0)
		return 0;
	store_db_rollback(s);
	return -1;
}

void store_db_rollback(struct store *s)
{
	char ignored[256];

	/* after a failed statement, what is left of the transaction goes */
	s->drv->exec(s->conn, "ROLLBACK", NULL, 0, NULL, ignored, sizeof ignored);
}

void store_result_free(struct store_result *r)
{
	if (!r->cell)
		return;
	for (size_t i = 0; i < r->nrows * r->ncols; i++)
		free(r->cell[i]);
	free(r->cell);
	r->cell = NULL;
	r->nrows = r->ncols = 0;
}
