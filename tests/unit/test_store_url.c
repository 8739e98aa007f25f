/*
 * test_store_url.c - a PostgreSQL store's URL as printed and recorded
 * (store_redact_url), what no message may show (store_url_secrets,
 * store_url_hide), what libpq is given (store_url_conninfo), and the
 * store's params key for values of any length (store_params_key).
 *
 * The redacted forms are checked twice: against the text expected, and
 * for the absence of the password in every spelling the URL gave it
 * (plain, percent-encoded), so that a rebuilt form that differs in
 * layout still cannot pass with the password in it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "store/store.h"
#include "store/store_key.h"

/* the password of every hostile URL below, spelled so in each */
#define PW "Pw7secret"

static void redacted(void)
{
	static const char *const cases[][2] = {
		/* what held */
		{"postgresql://alice:" PW "@db.example:5432/runs", "postgresql://alice@db.example:5432/runs"},
		{"postgres://alice@h/db", "postgres://alice@h/db"},
		{"postgresql:///runs?host=/tmp/x&password=" PW "&sslmode=disable",
		 "postgresql:///runs?host=/tmp/x&sslmode=disable"},
		{"postgresql://u:" PW "@h/db?password=" PW, "postgresql://u@h/db"},
		{"postgresql://alice:" PW "@127.0.0.1:1/db?password=" PW "&connect_timeout=2",
		 "postgresql://alice@127.0.0.1:1/db?connect_timeout=2"},
		{"postgresql://sysmeter@/t5?host=/tmp/sysmeter-pg.AbC123&port=5432",
		 "postgresql://sysmeter@/t5?host=/tmp/sysmeter-pg.AbC123&port=5432"},
		/* issue 33: the keyword percent-encoded (libpq decodes keywords) */
		{"postgresql://u@h/db?pass%77ord=" PW, "postgresql://u@h/db"},
		{"postgresql://u@h/db?pass%57ord=" PW, "postgresql://..."},	/* "passWord": refused */
		{"postgresql://u@h/db?%70%61%73%73%77%6f%72%64=" PW, "postgresql://u@h/db"},
		{"postgresql://u@h/db?%70%61%73%73%77%6F%72%64=" PW, "postgresql://u@h/db"},
		{"postgresql://u@h/db?sslpassword=" PW "&sslmode=require",
		 "postgresql://u@h/db?sslmode=require"},
		{"postgresql://u@h/db?ssl%70assword=" PW, "postgresql://u@h/db"},
		/* the value percent-encoded */
		{"postgresql://u:%50w7secret@h/db", "postgresql://u@h/db"},
		{"postgresql://u@h/db?password=%50w7secret", "postgresql://u@h/db"},
		/* given twice: libpq keeps the last, neither may show */
		{"postgresql://u:" PW "@h/db?password=other" PW, "postgresql://u@h/db"},
		{"postgresql://u@h/db?password=" PW "&password=x", "postgresql://u@h/db"},
		/* libpq's user part ends at the first '@', a '?' before it or not */
		{"postgresql://u:" PW "?x@h/db", "postgresql://u@h/db"},
		/* a ':' percent-encoded in the authority: a password by another name */
		{"postgresql://u%3A" PW "@h/db", "postgresql://u@h/db"},
		{"postgresql://u%3a" PW "%40h/db", "postgresql://h/db"},	/* no '@': all host */
		/* an '@' of the password not encoded: the rest became the host */
		{"postgresql://u:p@" PW "@h/db", "postgresql://u@h/db"},
		/* the scheme in capitals: libpq knows only lower case; read as it */
		{"POSTGRESQL://u:" PW "@h/db", "postgresql://u@h/db"},
		{"PostGres://u:" PW "@h/db?Password=" PW, "postgres://..."},
		/* a URL libpq refuses shows nothing but its scheme */
		{"postgresql://h/db?passwrd=" PW, "postgresql://..."},
		{"postgresql://h/db?" PW, "postgresql://..."},
		{"postgresql://h/db?x=a:b@c", "postgresql://..."},
		{"mysql://u:" PW "@h/db", "mysql://..."},
		/* several hosts, an IPv6 one, a socket folder percent-encoded */
		{"postgresql://u:" PW "@h1:5432,h2:5433/db", "postgresql://u@/db?host=h1,h2&port=5432,5433"},
		{"postgresql://u:" PW "@[::1]:5433/db", "postgresql://u@[::1]:5433/db"},
		{"postgresql://%2Fvar%2Frun%2Fpg/db", "postgresql:///db?host=/var/run/pg"},
		{"postgresql://h", "postgresql://h"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *r = store_redact_url(cases[i][0]);

		is_str(r, cases[i][1], cases[i][0]);
		ok(r && !strstr(r, PW) && !strstr(r, "%50w7secret"), "no password in the form of %s",
		   cases[i][0]);
		free(r);
	}
}

static void secrets(void)
{
	static const char *const hostile[] = {
		"postgresql://u:" PW "@h/db", "postgresql://u@h/db?pass%77ord=" PW,
		"postgresql://u@h/db?sslpassword=" PW, "postgresql://u%3A" PW "@h/db",
		"postgresql://u:p@" PW "@h/db", "POSTGRESQL://u@h/db?password=%50w7secret",
	};
	for (size_t i = 0; i < sizeof hostile / sizeof *hostile; i++) {
		char **s = store_url_secrets(hostile[i]);
		char msg[200];

		snprintf(msg, sizeof msg, "FATAL: role \"u:%s\" does not exist; host \"p@%s@h\"", PW,
			 PW);
		store_url_hide(msg, sizeof msg, s);
		ok(!strstr(msg, PW) && strstr(msg, "***"), "a message loses the password of %s: %s",
		   hostile[i], msg);
		store_url_secrets_free(s);
	}
	char **none = store_url_secrets("postgresql://u@h/db");
	char msg[64] = "password authentication failed for user \"u\"";

	ok(none && !none[0], "a URL without a password has no secrets");
	store_url_hide(msg, sizeof msg, none);
	is_str(msg, "password authentication failed for user \"u\"", "then a message is as it was");
	store_url_secrets_free(none);
	/* a short secret, and a message cut to its buffer */
	char **two = store_url_secrets("postgresql://u:ab@h/db");
	char small[8] = "xabyabz";

	store_url_hide(small, sizeof small, two);
	is_str(small, "x***y**", "a secret shorter than *** in a full buffer: cut, never overrun");
	store_url_secrets_free(two);
}

static void conninfo(void)
{
	char err[512];
	char *c = store_url_conninfo("POSTGRESQL://u:" PW "@h/db", err, sizeof err);

	is_str(c, "postgresql://u:" PW "@h/db", "libpq gets the scheme in lower case, the rest as given");
	free(c);
	err[0] = 0;
	ok(!store_url_conninfo("postgresql://h/db?passwrd=" PW, err, sizeof err) &&
	   strstr(err, "invalid URI query parameter") && !strstr(err, PW),
	   "a URL libpq refuses: its message without the URL (%s)", err);
	ok(!store_url_conninfo("postgresql://h/db?" PW, err, sizeof err) && !strstr(err, PW) &&
	   strstr(err, "\"=\""), "a quoted '=' of libpq's stays (%s)", err);
	ok(!store_url_conninfo("postgresql://u:p@" PW "@h/db", err, sizeof err) && !strstr(err, PW) &&
	   strstr(err, "%40"), "an '@' in the host: refused, told to write %%40 (%s)", err);
	ok(!store_url_conninfo("mysql://u:" PW "@h/db", err, sizeof err) && !strstr(err, PW) &&
	   strstr(err, "not a PostgreSQL URL"), "another scheme: refused (%s)", err);
	ok(store_is_url("POSTGRESQL://h/db") && store_is_url("postgres://h/db") &&
	   store_is_url("mysql://h") && !store_is_url("out/sysmeter.db") &&
	   !store_is_url("dir/postgresql://x") && !store_is_url("://x"),
	   "any scheme:// is a URL, never a SQLite path");
}

static void long_values(void)
{
	size_t n = 3000;
	char *a = malloc(n + 1), *b = malloc(n + 1);

	memset(a, 'x', n);
	a[n] = 0;
	memcpy(b, a, n + 1);
	b[1600] = 'y';
	json_t *pa = json_pack("{s:s}", "text", a), *pb = json_pack("{s:s}", "text", b);
	char *ka = store_params_key(pa), *kb = store_params_key(pb);

	ok(strcmp(ka, kb) != 0, "two values that differ only after byte 1500: two keys");
	ok(strlen(ka) == strlen("text=") + n, "the key holds the whole value (%zu bytes)", strlen(ka));
	json_decref(pa);
	json_decref(pb);
	free(ka);
	free(kb);
	pa = json_pack("{s:s#}", "v", "a\0b", (size_t)3);
	pb = json_pack("{s:s#}", "v", "a\0c", (size_t)3);
	ka = store_params_key(pa);
	kb = store_params_key(pb);
	is_str(ka, "v=a%00b", "a NUL byte in a value: %00, the rest kept");
	ok(strcmp(ka, kb) != 0, "values that differ after a NUL byte: two keys");
	json_decref(pa);
	json_decref(pb);
	free(ka);
	free(kb);
	free(a);
	free(b);
}

int main(void)
{
	redacted();
	secrets();
	conninfo();
	long_values();
	return done_testing();
}
