/*
 * hmac.c - HMAC-SHA256 through libcrypto, and token files (see hmac.h).
 */
#include "lib/hmac.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

int hmac_sha256_hex(const void *key, size_t klen, const char *msg, char hex[65])
{
	unsigned char mac[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (!HMAC(EVP_sha256(), key, (int)klen, (const unsigned char *)msg, strlen(msg), mac, &n) ||
	    n != 32)
		return -1;
	for (unsigned int i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", mac[i]);
	return 0;
}

int hmac_read_token(const char *path, unsigned char *buf, size_t cap, size_t *len,
		    char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		snprintf(err, errlen, "token file '%s': %s", path, strerror(errno));
		return -1;
	}
	unsigned char extra;

	n = fread(buf, 1, cap, f);
	if (n == cap && fread(&extra, 1, 1, f) == 1) {
		snprintf(err, errlen, "token file '%s': longer than %zu bytes", path, cap);
		fclose(f);
		return -1;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "token file '%s': read error", path);
		fclose(f);
		return -1;
	}
	fclose(f);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	if (n < HMAC_TOKEN_MIN) {
		snprintf(err, errlen, "token file '%s': %zu bytes (%d to %zu needed)", path, n,
			 HMAC_TOKEN_MIN, cap);
		return -1;
	}
	*len = n;
	return 0;
}
