/*
 * store_url.c - a PostgreSQL store's URL: what libpq is given, what may
 * be printed of it, what no message may show (store_url.h).
 *
 * Matching the URL's text (":...@", "password=") missed what libpq reads
 * as a password too: "pass%77ord=" (libpq percent-decodes keywords),
 * "sslpassword=", "u:PW?x@h" (libpq's user part ends at the first '@'
 * before a '/', wherever a '?' is).  So the URL is read by libpq's own
 * parser and the printable form is rebuilt from what it read, leaving out
 * every option libpq itself hides.
 */
#include "store/store_url.h"
#include "store/store.h"

#include <ctype.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The length of the scheme of a "scheme://" at s (RFC 3986's letters), or 0. */
static size_t scheme_len(const char *s)
{
	size_t n = 0;

	if (!isalpha((unsigned char)*s))
		return 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '+' || s[n] == '-' || s[n] == '.')
		n++;
	return strncmp(s + n, "://", 3) == 0 ? n : 0;
}

static int is_pg_scheme(const char *s, size_t n)
{
	return (n == 10 && strncasecmp(s, "postgresql", 10) == 0) ||
	       (n == 8 && strncasecmp(s, "postgres", 8) == 0);
}

/* Any "scheme://" is taken for a URL, never for a SQLite file's path: a
   "POSTGRESQL://u:PW@h/db" or a "mysql://..." must not become a file
   named after its password (store.c sends every URL to driver_pg.c,
   which says when it is not PostgreSQL's). */
int store_is_url(const char *where)
{
	return where && scheme_len(where) > 0;
}

/* A copy of url, its scheme in lower case; NULL when it has none. */
static char *lower_scheme(const char *url)
{
	size_t n = scheme_len(url);
	char *copy;

	if (!n)
		return NULL;
	if (!(copy = strdup(url)))
		abort();
	for (size_t i = 0; i < n; i++)
		copy[i] = (char)tolower((unsigned char)copy[i]);
	return copy;
}

/* libpq's reading of url, or NULL (its message in *why when asked). */
static PQconninfoOption *parse(const char *url, char **why)
{
	char *copy = lower_scheme(url), *msg = NULL;
	PQconninfoOption *o = NULL;

	if (copy && is_pg_scheme(copy, scheme_len(copy)))
		o = PQconninfoParse(copy, &msg);
	free(copy);
	if (why)
		*why = msg;
	else
		PQfreemem(msg);
	return o;
}

static int hidden(const PQconninfoOption *o)
{
	return (o->dispchar && strchr(o->dispchar, '*')) || !strcmp(o->keyword, "password") ||
	       !strcmp(o->keyword, "sslpassword");
}

static const char *value(const PQconninfoOption *opts, const char *keyword)
{
	for (const PQconninfoOption *o = opts; o->keyword; o++)
		if (!strcmp(o->keyword, keyword))
			return o->val;
	return NULL;
}

/* libpq's message of a URL it refused, without any part of the URL: it
   quotes them ("invalid URI query parameter: "...""; "missing "=" after
   "..."" holds all of it).  A quoted span of one character is libpq's own
   syntax ("="), kept. */
static void say_refused(const char *msg, char *err, size_t errlen)
{
	FILE *f;
	char *out = NULL;
	size_t len, n;

	if (!(f = open_memstream(&out, &len)))
		abort();
	fputs("libpq cannot read the URL: ", f);
	for (const char *p = msg ? msg : "unknown error"; *p; p++) {
		const char *q = *p == '"' ? strchr(p + 1, '"') : NULL;

		if (*p != '"') {
			fputc(*p, f);
		} else if (q && q - p <= 2) {
			fwrite(p, 1, (size_t)(q - p + 1), f);
			p = q;
		} else {
			fputs("\"...\"", f);
			if (!q)
				break;
			p = q;
		}
	}
	if (fclose(f) != 0 || !out)
		abort();
	snprintf(err, errlen, "%s", out);
	free(out);
	n = strlen(err);
	while (n && (err[n - 1] == '\n' || err[n - 1] == ' '))
		err[--n] = 0;
}

char *store_url_conninfo(const char *url, char *err, size_t errlen)
{
	size_t n = scheme_len(url);
	char *why = NULL;
	PQconninfoOption *o;
	const char *host;

	if (!n || !is_pg_scheme(url, n)) {
		snprintf(err, errlen, "not a PostgreSQL URL (postgresql://... or postgres://...; a "
			 "SQLite store is a file path)");
		return NULL;
	}
	if (!(o = parse(url, &why))) {
		say_refused(why, err, errlen);
		PQfreemem(why);
		return NULL;
	}
	host = value(o, "host");
	/* "u:p@ss@h": libpq's password ends at the first '@', the rest of it
	   becomes the host, to be printed by every message that names it */
	if (host && strchr(host, '@')) {
		snprintf(err, errlen, "the URL's host holds an '@': write an '@' of the user "
			 "name or the password as %%40");
		PQconninfoFree(o);
		return NULL;
	}
	PQconninfoFree(o);
	return lower_scheme(url);
}

/* s onto f with every byte but the unreserved ones and those of keep as
   %XX. */
static void put_encoded(FILE *f, const char *s, const char *keep)
{
	for (; *s; s++)
		if (isalnum((unsigned char)*s) || strchr("-._~", *s) || (keep && strchr(keep, *s)))
			fputc(*s, f);
		else
			fprintf(f, "%%%02X", (unsigned char)*s);
}

/* A host that can stand in the authority as it is: a name or IPv4
   address, or (bracketed) an IPv6 one; anything else (a socket folder,
   several hosts) goes to the query. */
static int plain(const char *s, const char *extra)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return 0;
	return 1;
}

/* What of text may be shown: after its last '@' (see store_url_conninfo). */
static const char *after_at(const char *text)
{
	const char *at = strrchr(text, '@');

	return at ? at + 1 : text;
}

char *store_redact_url(const char *url)
{
	size_t n = scheme_len(url), len, qlen;
	PQconninfoOption *o = n ? parse(url, NULL) : NULL;
	const char *user, *host, *port, *db = NULL, *sep = "?";
	char *out = NULL, *query = NULL;
	FILE *f, *q;
	int host_in_url, port_in_url;

	if (!(f = open_memstream(&out, &len)) || !(q = open_memstream(&query, &qlen)))
		abort();
	for (size_t i = 0; i < n; i++)
		fputc(tolower((unsigned char)url[i]), f);
	fputs("://", f);
	if (!o) {
		/* nothing of a URL libpq cannot read is known not to be a password */
		fputs("...", f);
		goto done;
	}
	user = value(o, "user");
	host = value(o, "host");
	port = value(o, "port");
	db = value(o, "dbname");
	if (user) {
		/* up to a ':' (see store_url_secrets) */
		char *name = strndup(user, strcspn(user, ":"));

		if (!name)
			abort();
		put_encoded(f, name, NULL);
		fputc('@', f);
		free(name);
	}
	host = host ? after_at(host) : NULL;
	host_in_url = host && (plain(host, ".-_") || plain(host, ":."));
	if (host_in_url)
		fprintf(f, strchr(host, ':') ? "[%s]" : "%s", host);
	port_in_url = host_in_url && port && *port && strspn(port, "0123456789") == strlen(port);
	if (port_in_url)
		fprintf(f, ":%s", port);
	/* the rest in libpq's order of its options */
	for (PQconninfoOption *p = o; p->keyword; p++) {
		const char *k = p->keyword;

		if (!p->val || hidden(p) || !strcmp(k, "user") || !strcmp(k, "dbname") ||
		    (!strcmp(k, "host") && host_in_url) || (!strcmp(k, "port") && port_in_url))
			continue;
		fprintf(q, "%s%s=", sep, k);
		put_encoded(q, !strcmp(k, "host") ? host : p->val, "/:,@");
		sep = "&";
	}
done:
	if (fclose(q) != 0 || !query)
		abort();
	if (db || *query)
		fputc('/', f);
	if (db)
		put_encoded(f, db, NULL);
	fputs(query, f);
	free(query);
	PQconninfoFree(o);
	if (fclose(f) != 0 || !out)
		abort();
	return out;
}

static void add(char ***list, size_t *n, const char *s, size_t len)
{
	char **grown;

	if (!len)
		return;
	if (!(grown = realloc(*list, (*n + 2) * sizeof *grown)) || !(grown[*n] = strndup(s, len)))
		abort();
	grown[++*n] = NULL;
	*list = grown;
}

char **store_url_secrets(const char *url)
{
	PQconninfoOption *o = parse(url, NULL);
	char **list = calloc(1, sizeof *list);
	size_t n = 0;

	if (!list)
		abort();
	for (PQconninfoOption *p = o; p && p->keyword; p++) {
		const char *colon, *at;

		if (!p->val)
			continue;
		if (hidden(p))
			add(&list, &n, p->val, strlen(p->val));
		else if (!strcmp(p->keyword, "user") && (colon = strchr(p->val, ':')))
			add(&list, &n, colon + 1, strlen(colon + 1));
		else if (!strcmp(p->keyword, "host") && (at = strrchr(p->val, '@')))
			add(&list, &n, p->val, (size_t)(at - p->val));
	}
	PQconninfoFree(o);
	return list;
}

void store_url_secrets_free(char **secrets)
{
	for (size_t i = 0; secrets && secrets[i]; i++)
		free(secrets[i]);
	free(secrets);
}

void store_url_hide(char *msg, size_t len, char *const *secrets)
{
	char *out = NULL;
	size_t olen;
	FILE *f;

	if (!len || !secrets || !secrets[0])
		return;
	if (!(f = open_memstream(&out, &olen)))
		abort();
	for (const char *p = msg; *p;) {
		size_t hit = 0;

		for (size_t i = 0; secrets[i] && !hit; i++)
			if (strncmp(p, secrets[i], strlen(secrets[i])) == 0)
				hit = strlen(secrets[i]);
		if (hit) {
			fputs("***", f);
			p += hit;
		} else {
			fputc(*p++, f);
		}
	}
	if (fclose(f) != 0 || !out)
		abort();
	snprintf(msg, len, "%s", out);
	free(out);
}
