/*
 * store.c - a store opened (store.h): which driver, where, the schema
 * brought up to date.
 */
#include "store/store.h"
#include "store/store_db.h"
#include "store/store_key.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct store *store_open(const char *where, const char *out_dir, char *err, size_t errlen)
{
	struct store *s = calloc(1, sizeof *s);
	char path[4200];

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (!where || !*where) {
		snprintf(path, sizeof path, "%s/sysmeter.db", out_dir && *out_dir ? out_dir : "out");
		where = path;
	}
	if (store_is_url(where)) {
		s->drv = &store_pg_driver;
		s->where = store_redact_url(where);
		s->conn = store_pg_connect(where, err, errlen);
	} else {
		s->drv = &store_sqlite_driver;
		s->where = strdup(where);
		if (!s->where)
			abort();
		s->conn = store_sqlite_connect(where, err, errlen);
	}
	if (!s->conn) {
		char why[1024];

		snprintf(why, sizeof why, "%s", err);
		snprintf(err, errlen, "%s: %s", s->where, why);
		store_close(s);
		return NULL;
	}
	if (store_schema_ensure(s, err, errlen) < 0) {
		store_close(s);
		return NULL;
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
