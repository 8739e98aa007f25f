/*
 * hmac.c - HMAC-SHA256 through libcrypto, and token files (see hmac.h).
 */
#include "lib/hmac.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* "readable", "readable and writable", ... for the rwx bits in `bits`
   (0-7), or "" when none. */
static const char *access_words(unsigned bits)
{
	static const char *const words[8] = {
		"", "executable", "writable", "writable and executable", "readable",
		"readable and executable", "readable and writable",
		"readable, writable and executable",
	};
	return words[bits & 7];
}

/* The path as a shell word: as is when it is plain, else single-quoted. */
static void shell_word(const char *path, char *out, size_t len)
{
	size_t n = 0;

	if (path[0] && strspn(path, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			      "0123456789/._+,:@%-") == strlen(path) && path[0] != '-') {
		snprintf(out, len, "%s", path);
		return;
	}
	if (len < 3) {
		if (len)
			out[0] = '\0';
		return;
	}
	out[n++] = '\'';
	for (const char *p = path; *p && n + 6 < len; p++) {
		if (*p == '\'') {
			memcpy(out + n, "'\\''", 4);
			n += 4;
		} else {
			out[n++] = *p;
		}
	}
	out[n++] = '\'';
	out[n] = '\0';
}

/* A token file anyone but its owner may read or change is no secret: say
   so, with the chmod that fixes it (as ssh does for a key). */
static int check_mode(const char *path, const struct stat *st, char *err, size_t errlen)
{
	unsigned g = (st->st_mode >> 3) & 7, o = st->st_mode & 7;
	char who[120], word[600];

	if (!S_ISREG(st->st_mode)) {
		snprintf(err, errlen, "token file '%s': not a regular file", path);
		return -1;
	}
	if (!g && !o)
		return 0;
	if (g == o)
		snprintf(who, sizeof who, "%s by group and others", access_words(g));
	else if (!o)
		snprintf(who, sizeof who, "%s by group", access_words(g));
	else if (!g)
		snprintf(who, sizeof who, "%s by others", access_words(o));
	else
		snprintf(who, sizeof who, "%s by group, %s by others", access_words(g),
			 access_words(o));
	shell_word(path, word, sizeof word);
	snprintf(err, errlen, "token file '%s': mode %04o is %s: chmod 600 %s", path,
		 (unsigned)(st->st_mode & 07777), who, word);
	return -1;
}

int hmac_read_token(const char *path, unsigned char *buf, size_t cap, size_t *len,
		    char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	FILE *f;
	size_t n;

	if (fd < 0) {
		snprintf(err, errlen, "token file '%s': %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		snprintf(err, errlen, "token file '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (check_mode(path, &st, err, errlen) < 0) {
		close(fd);
		return -1;
	}
	if (!(f = fdopen(fd, "rb"))) {
		snprintf(err, errlen, "token file '%s': %s", path, strerror(errno));
		close(fd);
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
