/*
 * store_key.c - the store's pure helpers (store_key.h).
 */
#include "store/store_key.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* s onto f, with ',', '=', '%' and control bytes as %XX */
static void put_escaped(FILE *f, const char *s)
{
	for (; *s; s++)
		if (*s == ',' || *s == '=' || *s == '%' || (unsigned char)*s < 0x20)
			fprintf(f, "%%%02X", (unsigned char)*s);
		else
			fputc(*s, f);
}

/* What open_memstream made, or abort: a key of a few bytes that cannot be
   allocated leaves nothing to go on with. */
static char *closed(FILE *f, char **buf)
{
	/* *buf is set by fclose: read it after */
	if (!f || fclose(f) != 0 || !*buf)
		abort();
	return *buf;
}

/* A parameter's value onto f as the key writes it, escaped, whole: a
   string of any length (a file's text given as a parameter) and one with
   a NUL byte in it are told apart from every other. */
static void put_value(FILE *f, const json_t *v)
{
	char num[64];

	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		size_t n = json_string_length(v);

		for (size_t i = 0; i < n; i++) {
			const char *at = memchr(s + i, 0, n - i);
			size_t run = at ? (size_t)(at - (s + i)) : n - i;
			char *part = strndup(s + i, run);

			if (!part)
				abort();
			put_escaped(f, part);
			free(part);
			i += run;
			if (i < n)
				fputs("%00", f);
		}
		return;
	}
	if (json_is_integer(v))
		snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(num, sizeof num, "%.15g", json_real_value(v));
	else
		snprintf(num, sizeof num, "%s", json_is_true(v) ? "true" : json_is_false(v) ? "false"
										  : "null");
	put_escaped(f, num);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

char *store_params_key(const json_t *params)
{
	size_t n = json_is_object(params) ? json_object_size(params) : 0, i = 0, len;
	const char **keys = calloc(n ? n : 1, sizeof *keys);
	const char *k;
	json_t *v;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &len);

	if (!keys || !f)
		abort();
	if (n)
		json_object_foreach((json_t *)params, k, v)
			keys[i++] = k;
	qsort(keys, n, sizeof *keys, cmp_str);
	for (i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		put_escaped(f, keys[i]);
		fputc('=', f);
		put_value(f, json_object_get(params, keys[i]));
	}
	free(keys);
	return closed(f, &buf);
}

int store_key_has(const char *key, const char *name_eq_value)
{
	const char *eq = strchr(name_eq_value, '=');
	char *want = NULL, *name;
	size_t wlen;
	FILE *f;
	int found = 0;

	if (!eq)
		return 0;
	/* the filter escaped as the key is */
	if (!(name = strndup(name_eq_value, (size_t)(eq - name_eq_value))) ||
	    !(f = open_memstream(&want, &wlen)))
		abort();
	put_escaped(f, name);
	fputc('=', f);
	put_escaped(f, eq + 1);
	free(name);
	want = closed(f, &want);
	wlen = strlen(want);
	for (const char *p = key; p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n == wlen && strncmp(p, want, n) == 0) {
			found = 1;
			break;
		}
		p = end ? end + 1 : NULL;
	}
	free(want);
	return found;
}

void store_fingerprint(const json_t *machine, char *buf, size_t len)
{
	static const char *const keys[] = {"hostname", "arch", "cpu_model", "cpus_configured",
					   "memory_bytes"};
	json_t *id = json_object();
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	char *text;

	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		json_t *v = json_object_get(machine, keys[i]);
		json_object_set(id, keys[i], v ? v : json_null());
	}
	json_t *sig = json_object_get(json_object_get(machine, "cpu"), "signature");
	json_object_set(id, "cpu_signature", sig ? sig : json_null());
	text = json_dumps(id, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(id);
	if (!text || !EVP_Digest(text, strlen(text), md, &mdlen, EVP_sha256(), NULL))
		mdlen = 0;
	free(text);
	buf[0] = 0;
	for (unsigned int i = 0; i < 8 && i < mdlen && 2 * i + 2 < len; i++)
		snprintf(buf + 2 * i, len - 2 * i, "%02x", md[i]);
}

/* A regular file opened for reading, never a FIFO or device (open would
   wait for a writer; O_NONBLOCK, then fstat) nor a symbolic link planted
   in a run folder (O_NOFOLLOW).  NULL with err. */
static FILE *open_regular(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	FILE *f;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: %s", path, fd >= 0 ? "not a regular file"
			 : errno == ELOOP ? "a symbolic link (not followed)" : strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!(f = fdopen(fd, "rb"))) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

void store_sha256_text(const char *data, size_t len, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	if (!EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL))
		abort();
	for (unsigned int i = 0; i < mdlen && i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

int store_sha256_file(const char *path, char hex[65], char *err, size_t errlen)
{
	FILE *f = open_regular(path, err, errlen);
	EVP_MD_CTX *ctx;
	unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	size_t n;
	int ok;

	if (!f)
		return -1;
	ctx = EVP_MD_CTX_new();
	ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	while (ok && (n = fread(buf, 1, sizeof buf, f)) > 0)
		ok = EVP_DigestUpdate(ctx, buf, n);
	if (ferror(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		ok = 0;
	} else if (ok) {
		ok = EVP_DigestFinal_ex(ctx, md, &mdlen);
	}
	if (!ok && !ferror(f))
		snprintf(err, errlen, "%s: sha256 failed", path);
	EVP_MD_CTX_free(ctx);
	fclose(f);
	if (!ok)
		return -1;
	for (unsigned int i = 0; i < mdlen && i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	return 0;
}

double store_iso_seconds(const char *iso)
{
	struct tm tm = {0};
	const char *end;

	if (!iso || !(end = strptime(iso, "%Y-%m-%dT%H:%M:%S", &tm)) || (*end && *end != 'Z'))
		return NAN;
	return (double)timegm(&tm);
}
