/*
 * proto.c - the serve protocol (serve.h) without I/O: the control lines,
 * parsed strictly (anything else than the grammar is an error message,
 * never a guess), the handshake of one connection, the SINK frame header
 * and the byte budget.  Pure functions, fuzzed by tests/fuzz/fuzz_serve.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "lib/hmac.h"
#include "lib/jsonutil.h"
#include "lib/text.h"
#include "serve/serve.h"

#define MAX_WORDS 8

/* Split line[0..len) at single spaces into at most MAX_WORDS words (copied
   into buf, NUL-separated).  Returns the count, or -1 (message) on a
   non-printable byte, an empty word or too many words. */
static int split(const char *line, size_t len, char *buf, char **w, char *err, size_t errlen)
{
	int n = 0;

	if (len == 0 || len >= SERVE_LINE_MAX) {
		snprintf(err, errlen, "line of %zu bytes (1 to %d allowed)", len, SERVE_LINE_MAX - 1);
		return -1;
	}
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)line[i] < 0x20 || (unsigned char)line[i] > 0x7e) {
			snprintf(err, errlen, "byte 0x%02x at offset %zu is not printable ASCII",
				 (unsigned char)line[i], i);
			return -1;
		}
	memcpy(buf, line, len);
	buf[len] = '\0';
	for (char *p = buf;;) {
		char *sp = strchr(p, ' ');

		if (sp == p || *p == '\0') {
			snprintf(err, errlen, "empty word at offset %zu", (size_t)(p - buf));
			return -1;
		}
		if (n == MAX_WORDS) {
			snprintf(err, errlen, "more than %d words", MAX_WORDS);
			return -1;
		}
		w[n++] = p;
		if (!sp)
			break;
		*sp = '\0';
		p = sp + 1;
	}
	return n;
}

/* A decimal number in [0, max], all digits, at most 12 of them. */
static int number(const char *s, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;
	size_t n = strlen(s);

	if (n == 0 || n > 12)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	if (x > max)
		return -1;
	*v = x;
	return 0;
}

int serve_parse_hello(const char *line, size_t len, int *version, char *err, size_t errlen)
{
	char buf[SERVE_LINE_MAX], *w[MAX_WORDS];
	uint64_t v;
	int n = split(line, len, buf, w, err, errlen);

	if (n < 0)
		return -1;
	if (n != 3 || strcmp(w[0], "SYSMETER") != 0 || strcmp(w[2], "HELLO") != 0) {
		snprintf(err, errlen, "expected 'SYSMETER <version> HELLO'");
		return -1;
	}
	if (number(w[1], 1000000, &v) < 0) {
		snprintf(err, errlen, "bad protocol version '%.12s'", w[1]);
		return -1;
	}
	*version = (int)v;
	return 0;
}

static int is_mac(const char *s)
{
	if (strcmp(s, "-") == 0)
		return 1;
	if (strlen(s) != 64)
		return 0;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return 0;
	return 1;
}

/* One key=value of the mode; seen[] catches repeats. */
static int auth_key(struct serve_req *r, const char *k, const char *v, int *seen, char *err,
		    size_t errlen)
{
	static const char *const keys[] = {"size", "cpu", "rcvbuf", "close"};
	int ki = -1;
	uint64_t x;

	for (int i = 0; i < 4; i++)
		if (strcmp(k, keys[i]) == 0)
			ki = i;
	if (ki < 0 || r->mode == SERVE_INFO || (ki == 0 && r->mode != SERVE_ECHO) || (ki == 2 && r->mode != SERVE_SINK) ||
	    (ki == 3 && r->mode != SERVE_CONN)) {
		snprintf(err, errlen, "unknown key '%.20s' for this mode", k);
		return -1;
	}
	if (seen[ki]++) {
		snprintf(err, errlen, "key '%s' given twice", k);
		return -1;
	}
	switch (ki) {
	case 0:
		if (number(v, SERVE_ECHO_MAX, &x) < 0 || x == 0)
			goto bad;
		r->size = x;
		break;
	case 1:
		if (number(v, 4095, &x) < 0)
			goto bad;
		r->cpu = (int)x;
		break;
	case 2:
		if (number(v, 1u << 30, &x) < 0)
			goto bad;
		r->rcvbuf = x;
		break;
	default:
		if (strcmp(v, "client") != 0 && strcmp(v, "server") != 0)
			goto bad;
		r->close_server = strcmp(v, "server") == 0;
	}
	return 0;
bad:
	snprintf(err, errlen, "bad value '%.20s' for '%s'", v, k);
	return -1;
}

int serve_parse_auth(const char *line, size_t len, struct serve_req *r, char *err,
		     size_t errlen)
{
	char buf[SERVE_LINE_MAX], *w[MAX_WORDS];
	int seen[4] = {0};
	int n = split(line, len, buf, w, err, errlen);

	if (n < 0)
		return -1;
	memset(r, 0, sizeof *r);
	r->cpu = -1;
	if (n < 3 || strcmp(w[0], "AUTH") != 0) {
		snprintf(err, errlen, "expected 'AUTH <mac> <mode> [key=value ...]'");
		return -1;
	}
	if (!is_mac(w[1])) {
		snprintf(err, errlen, "bad mac (64 lowercase hex digits or '-')");
		return -1;
	}
	snprintf(r->mac, sizeof r->mac, "%s", w[1]);
	if (strcmp(w[2], "ECHO") == 0)
		r->mode = SERVE_ECHO;
	else if (strcmp(w[2], "SINK") == 0)
		r->mode = SERVE_SINK;
	else if (strcmp(w[2], "CONN") == 0)
		r->mode = SERVE_CONN;
	else if (strcmp(w[2], "INFO") == 0)
		r->mode = SERVE_INFO;
	else {
		snprintf(err, errlen, "unknown mode '%.20s' (ECHO, SINK, CONN, INFO)", w[2]);
		return -1;
	}
	for (int i = 3; i < n; i++) {
		char *eq = strchr(w[i], '=');

		if (!eq || eq == w[i]) {
			snprintf(err, errlen, "expected key=value, got '%.20s'", w[i]);
			return -1;
		}
		*eq = '\0';
		if (auth_key(r, w[i], eq + 1, seen, err, errlen) < 0)
			return -1;
	}
	if (r->mode == SERVE_ECHO && !seen[0]) {
		snprintf(err, errlen, "ECHO needs size=N (1 to %u)", SERVE_ECHO_MAX);
		return -1;
	}
	if (r->mode == SERVE_CONN && !seen[3]) {
		snprintf(err, errlen, "CONN needs close=client|server");
		return -1;
	}
	/* What the MAC covers: the line after "AUTH <mac> ". */
	snprintf(r->signed_part, sizeof r->signed_part, "%.*s", (int)(len - 6 - strlen(r->mac)),
		 line + 6 + strlen(r->mac));
	return 0;
}

/* --- the handshake ------------------------------------------------------ */

/* One reply line into out, '\n'-terminated even when cut short. */
static void reply(char *out, size_t outlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void reply(char *out, size_t outlen, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	if (outlen < 2) {
		if (outlen)
			out[0] = '\0';
		return;
	}
	va_start(ap, fmt);
	vsnprintf(out, outlen - 1, fmt, ap);
	va_end(ap);
	n = strlen(out);
	out[n] = '\n';
	out[n + 1] = '\0';
}

static enum serve_hs_state hs_fail(struct serve_hs *h, const char *why)
{
	snprintf(h->why, sizeof h->why, "refused: %s", why);
	h->state = SERVE_HS_FAILED;
	return h->state;
}

void serve_hs_init(struct serve_hs *h, const char *nonce, const unsigned char *secret,
		   size_t secret_len)
{
	memset(h, 0, sizeof *h);
	snprintf(h->nonce, sizeof h->nonce, "%s", nonce);
	h->secret = secret;
	h->secret_len = secret_len;
	h->state = SERVE_HS_HELLO;
}

void serve_hs_refuse(struct serve_hs *h, const char *msg, char *out, size_t outlen)
{
	if (h->state == SERVE_HS_HELLO)
		reply(out, outlen, "SYSMETER %d ERR %s", SERVE_PROTO_VERSION, msg);
	else
		reply(out, outlen, "ERR %s", msg);
	hs_fail(h, msg);
}

/* A complete line (without its '\n') in the state h is in. */
static enum serve_hs_state hs_line(struct serve_hs *h, const char *line, size_t len, char *out,
				   size_t outlen)
{
	char err[160], why[200], msg[SERVE_LINE_MAX + 40], want[65];
	int v;

	if (h->state == SERVE_HS_HELLO) {
		if (serve_parse_hello(line, len, &v, err, sizeof err) < 0) {
			reply(out, outlen, "SYSMETER %d ERR %s", SERVE_PROTO_VERSION, err);
			snprintf(why, sizeof why, "bad hello: %s", err);
			return hs_fail(h, why);
		}
		if (v != SERVE_PROTO_VERSION) {
			reply(out, outlen, "SYSMETER %d ERR protocol version %d not supported (this "
			      "peer speaks %d)", SERVE_PROTO_VERSION, v, SERVE_PROTO_VERSION);
			snprintf(why, sizeof why, "client speaks protocol version %d, this peer %d", v,
				 SERVE_PROTO_VERSION);
			return hs_fail(h, why);
		}
		reply(out, outlen, "SYSMETER %d CHALLENGE %s %s", SERVE_PROTO_VERSION, h->nonce,
		      h->secret ? "auth" : "open");
		h->state = SERVE_HS_AUTH;
		return h->state;
	}
	if (serve_parse_auth(line, len, &h->req, err, sizeof err) < 0) {
		reply(out, outlen, "ERR %s", err);
		snprintf(why, sizeof why, "bad request: %s", err);
		return hs_fail(h, why);
	}
	if (h->secret) {
		snprintf(msg, sizeof msg, "%s %s", h->nonce, h->req.signed_part);
		if (hmac_sha256_hex(h->secret, h->secret_len, msg, want) < 0) {
			serve_hs_refuse(h, "internal error (HMAC-SHA256 failed)", out, outlen);
			return h->state;
		}
		if (strlen(h->req.mac) != 64 || CRYPTO_memcmp(want, h->req.mac, 64) != 0) {
			reply(out, outlen, "ERR authentication failed (wrong or missing token)");
			return hs_fail(h, "authentication failed");
		}
	}
	h->state = SERVE_HS_OK;
	return h->state;
}

enum serve_hs_state serve_hs_feed(struct serve_hs *h, const char *data, size_t len, size_t *used,
				  char *out, size_t outlen)
{
	const char *nl;
	size_t take, n;

	if (outlen)
		out[0] = '\0';
	*used = 0;
	if (h->state == SERVE_HS_OK || h->state == SERVE_HS_FAILED || len == 0)
		return h->state;
	nl = memchr(data, '\n', len);
	take = nl ? (size_t)(nl - data) : len;
	if (take > SERVE_LINE_MAX - 1 - h->n) {
		char msg[80];

		*used = len;
		snprintf(msg, sizeof msg, "control line longer than %d bytes", SERVE_LINE_MAX - 1);
		serve_hs_refuse(h, msg, out, outlen);
		return h->state;
	}
	memcpy(h->line + h->n, data, take);
	h->n += take;
	*used = take + (nl ? 1 : 0);
	if (!nl)
		return h->state;
	n = h->n;
	h->n = 0;
	return hs_line(h, h->line, n, out, outlen);
}

/* --- the data phase ----------------------------------------------------- */

int serve_budget_fits(uint64_t used, uint64_t more, uint64_t max)
{
	return used <= max && more <= max - used;
}

static uint64_t le64_get(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

int serve_sink_header(const unsigned char hdr[16], uint64_t used, uint64_t max, uint64_t *len,
		      char *err, size_t errlen)
{
	uint64_t magic = le64_get(hdr), l = le64_get(hdr + 8);

	*len = 0;
	if (magic != SERVE_SINK_MAGIC) {
		snprintf(err, errlen, "bad frame header (magic %016llx)", (unsigned long long)magic);
		return -1;
	}
	if (l == 0)
		return 0;
	if (!serve_budget_fits(used, l, max)) {
		snprintf(err, errlen, "frame of %llu bytes refused: the session's byte limit is %llu "
			 "and %llu are used", (unsigned long long)l, (unsigned long long)max,
			 (unsigned long long)used);
		return -1;
	}
	*len = l;
	return 1;
}

/* --- the peer's machine (INFO) ------------------------------------------ */

#define INFO_TEXT_MAX 200
#define INFO_INT_MAX (1LL << 53)

enum info_type { INFO_TEXT, INFO_INT, INFO_NUM };

struct info_key {
	const char *name;
	enum info_type type;
};

static const struct info_key info_top[] = {
	{"hostname", INFO_TEXT}, {"cpu_model", INFO_TEXT}, {"cpus_online", INFO_INT},
	{"core_clock_hz", INFO_NUM}, {"memory_bytes", INFO_INT}, {"kernel", INFO_TEXT},
	{"arch", INFO_TEXT},
};
static const struct info_key info_cpu[] = {
	{"vendor", INFO_TEXT}, {"family", INFO_INT}, {"model", INFO_INT}, {"stepping", INFO_INT},
	{"microarchitecture", INFO_TEXT},
};

/* One value of a known key, checked; a new reference, or NULL. */
static json_t *info_value(json_t *v, enum info_type t)
{
	if (json_is_null(v))
		return json_null();
	switch (t) {
	case INFO_TEXT: {
		const char *s = json_string_value(v);

		if (!s || json_string_length(v) != strlen(s) || strlen(s) > INFO_TEXT_MAX ||
		    !text_printable_utf8(s))
			return NULL;
		return json_string(s);
	}
	case INFO_INT:
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > INFO_INT_MAX)
			return NULL;
		return json_integer(json_integer_value(v));
	case INFO_NUM:
		if (!json_is_number(v) || !(json_number_value(v) > 0) || json_number_value(v) > 1e15)
			return NULL;
		return json_real(json_number_value(v));
	}
	return NULL;
}

/* The known keys of `in` into out; 0, or -1 and a message. */
static int info_keys(json_t *in, const struct info_key *keys, size_t n, json_t *out,
		     const char *path, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		json_t *v = json_object_get(in, keys[i].name), *c;

		if (!v) {
			jsonutil_set(out, keys[i].name, json_null());
			continue;
		}
		if (!(c = info_value(v, keys[i].type))) {
			snprintf(err, errlen, "MACHINE: %s%s is not %s", path, keys[i].name,
				 keys[i].type == INFO_TEXT ? "printable text of at most 200 bytes" :
				 keys[i].type == INFO_INT ? "a whole number" : "a positive number");
			return -1;
		}
		jsonutil_set(out, keys[i].name, c);
	}
	return 0;
}

int serve_parse_info(const char *line, size_t len, json_t **out, char *err, size_t errlen)
{
	json_error_t je;
	json_t *j, *o, *cpu;

	*out = NULL;
	if (len < 9 || len >= SERVE_INFO_MAX || memcmp(line, "MACHINE ", 8) != 0) {
		snprintf(err, errlen, "expected 'MACHINE <json>' of at most %d bytes",
			 SERVE_INFO_MAX - 1);
		return -1;
	}
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)line[i] < 0x20 || (unsigned char)line[i] > 0x7e) {
			snprintf(err, errlen, "MACHINE: byte 0x%02x at offset %zu is not printable "
				 "ASCII", (unsigned char)line[i], i);
			return -1;
		}
	j = json_loadb(line + 8, len - 8, JSON_REJECT_DUPLICATES, &je);
	if (!j || !json_is_object(j)) {
		snprintf(err, errlen, "MACHINE: %s", j ? "not a JSON object" : "not JSON");
		json_decref(j);
		return -1;
	}
	o = json_object();
	cpu = json_object_get(j, "cpu");
	if (info_keys(j, info_top, sizeof info_top / sizeof info_top[0], o, "", err, errlen) < 0 ||
	    (cpu && !json_is_null(cpu) && !json_is_object(cpu) &&
	     snprintf(err, errlen, "MACHINE: cpu is not an object") > 0)) {
		json_decref(o);
		json_decref(j);
		return -1;
	}
	if (json_is_object(cpu)) {
		json_t *c = json_object();

		jsonutil_set(o, "cpu", c);
		if (info_keys(cpu, info_cpu, sizeof info_cpu / sizeof info_cpu[0], c, "cpu.", err,
			      errlen) < 0) {
			json_decref(o);
			json_decref(j);
			return -1;
		}
	} else {
		jsonutil_set(o, "cpu", json_null());
	}
	json_decref(j);
	*out = o;
	return 0;
}

json_t *serve_info_facts(json_t *m)
{
	json_t *o = json_object(), *cpu = json_object_get(m, "cpu"), *c = json_object();
	double hz = jsonutil_num(json_object_get(m, "core_clock"), "hz");
	json_t *clean = NULL;

	for (size_t i = 0; i < sizeof info_top / sizeof info_top[0]; i++) {
		json_t *v = json_object_get(m, info_top[i].name);

		jsonutil_set(o, info_top[i].name, v ? json_deep_copy(v) : json_null());
	}
	jsonutil_set(o, "core_clock_hz", hz > 0 ? json_real(hz) : json_null());
	for (size_t i = 0; i < sizeof info_cpu / sizeof info_cpu[0]; i++) {
		json_t *v = json_object_get(cpu, info_cpu[i].name);

		jsonutil_set(c, info_cpu[i].name, v ? json_deep_copy(v) : json_null());
	}
	jsonutil_set(o, "cpu", c);
	/* what a client would refuse (a host name of 300 bytes) is sent as null */
	for (size_t i = 0; i < sizeof info_top / sizeof info_top[0]; i++)
		if (!(clean = info_value(json_object_get(o, info_top[i].name), info_top[i].type)))
			jsonutil_set(o, info_top[i].name, json_null());
		else
			json_decref(clean);
	for (size_t i = 0; i < sizeof info_cpu / sizeof info_cpu[0]; i++)
		if (!(clean = info_value(json_object_get(c, info_cpu[i].name), info_cpu[i].type)))
			jsonutil_set(c, info_cpu[i].name, json_null());
		else
			json_decref(clean);
	return o;
}
