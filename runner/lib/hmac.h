/*
 * hmac.h - the shared-secret signature of the `runner serve` protocol:
 * HMAC-SHA256 (libcrypto) as 64 hex digits.  Both ends use it: the peer to
 * check a request, the measuring side (through probe_host.peer_sign) to sign
 * one, so that the secret never leaves the runner and never goes on the wire.
 */
#ifndef SYSMETER_HMAC_H
#define SYSMETER_HMAC_H

#include <stddef.h>

/* hex = HMAC-SHA256(key, msg) as lowercase hex.  0, or -1 (libcrypto failed). */
int hmac_sha256_hex(const void *key, size_t klen, const char *msg, char hex[65]);

/* A shorter secret is refused: it could be guessed. */
#define HMAC_TOKEN_MIN 16

/* Read a token file: its bytes without trailing newlines, HMAC_TOKEN_MIN to
   cap of them.  A file that is not regular, or that group or others may
   read, write or execute, is refused, naming the chmod that fixes it
   ("token file 'x': mode 0644 is readable by group and others: chmod 600 x").
   0; -1 with "token file 'PATH': why" in err. */
int hmac_read_token(const char *path, unsigned char *buf, size_t cap, size_t *len,
		    char *err, size_t errlen);

#endif
