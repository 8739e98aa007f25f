/*
 * store_url.h - a PostgreSQL store's URL (store_url.c): what libpq is
 * given, what may be printed or recorded of it, and what no message may
 * show.  Unit-tested (tests/unit/test_store_key.c).
 *
 * What is a secret is decided on the URL as libpq reads it
 * (PQconninfoParse: keywords and values percent-decoded, the last of a
 * keyword given twice kept), never on its text: every option libpq
 * itself hides (PQconninfoOption.dispchar '*': password, sslpassword)
 * goes, however its name or value was spelled.
 */
#ifndef SYSMETER_STORE_URL_H
#define SYSMETER_STORE_URL_H

#include <stddef.h>

/* The URL as libpq is to read it (a malloc'd copy, its scheme in lower
   case: libpq knows "postgresql://" and "postgres://" only so, and reads
   "POSTGRESQL://..." as a broken keyword list), or NULL with err when the
   scheme is not PostgreSQL's or libpq refuses the URL; err never holds a
   part of the URL. */
char *store_url_conninfo(const char *url, char *err, size_t errlen);

/* url as it may be printed and recorded: rebuilt from what libpq reads,
   without the options libpq hides (postgresql://u:secret@h/db ->
   postgresql://u@h/db; ?password=, ?pass%77ord=, ?sslpassword= gone) and
   without what follows a ':' in the user name (u%3Asecret@: a password
   in all but name).  A URL libpq refuses keeps only its scheme
   ("postgresql://...").  A malloc'd string. */
char *store_redact_url(const char *url);

/* The strings of url that no message may show: the values of the options
   libpq hides and what follows a ':' in the user name; a malloc'd,
   NULL-ended array (store_url_secrets_free), empty when there are none
   or libpq refuses the URL. */
char **store_url_secrets(const char *url);
void store_url_secrets_free(char **secrets);

/* msg with every occurrence of each secret replaced by "***", in place
   (msg holds len bytes). */
void store_url_hide(char *msg, size_t len, char *const *secrets);

#endif
