/*
 * store_key.h - the pure parts of the store (store_key.c), unit-tested:
 * a point's stable parameter key, a machine's fingerprint, sha256 of a
 * file (and, through store_url.h, a URL without its password).
 */
#ifndef SYSMETER_STORE_KEY_H
#define SYSMETER_STORE_KEY_H

#include <stddef.h>
#include <jansson.h>

#include "store/store.h"
#include "store/store_url.h"

/* {"size": 4096, "mode": "a"} -> "mode=a,size=4096": sorted by key, numbers
   as %.15g, strings as they are, true/false, null; ',', '=', '%' and
   control bytes percent-encoded, so the key can be split again.  A
   malloc'd string. */
char *store_params_key(const json_t *params);

/* Does the key hold "name=value" (value compared as the key writes it)? */
int store_key_has(const char *key, const char *name_eq_value);

/* The machine's fingerprint: 16 hex digits of sha256 over what stays the
   same while a machine is the same machine (hostname, arch, CPU model and
   signature, CPUs, memory), not what a user changes between runs (kernel,
   governor, load).  buf gets 17 bytes. */
void store_fingerprint(const json_t *machine, char *buf, size_t len);


/* sha256 of a file as 64 hex digits; 0, or -1 with err (a file that is
   not regular, or a symbolic link, is refused, never waited on). */
int store_sha256_file(const char *path, char hex[65], char *err, size_t errlen);

/* sha256 of len bytes as 64 hex digits. */
void store_sha256_text(const char *data, size_t len, char hex[65]);

/* ISO-8601 UTC ("2026-11-25T08:00:00Z") as unix seconds; NAN if not. */
double store_iso_seconds(const char *iso);

#endif
