/*
 * fuzz_serve.c - the serve protocol as the listener and a session parse
 * it (runner/serve/proto.c): the control-line parsers (serve_parse_hello,
 * serve_parse_auth), the handshake of one connection (serve_hs_feed, fed
 * in pieces as a socket would give them), the SINK frame header against
 * the byte budget (serve_sink_header, serve_budget_fits) and the stream
 * checksum.
 *
 * An input is one control byte and a stream: bit 0 of the control byte
 * runs the handshake with a token (else open, as on loopback), the other
 * bits cut the stream into the pieces it is fed in; the same stream is
 * also one control line for the parsers and, read as u64s, a budget (used,
 * max) and SINK frame headers.  What must hold: a reply is one printable
 * line; nothing past the line that ends the handshake is taken; a
 * handshake is accepted only after HELLO and AUTH, with the right MAC for
 * the harness's nonce and token; the result does not depend on how the
 * stream is cut; a frame is accepted only when it fits the budget, without
 * an overflow.
 *
 * Built by `make unit` as $(BUILD)/tests/test_fuzz_serve (a plain main(),
 * so gcc and the ASan+UBSan build run it in `make test`):
 *     test_fuzz_serve [ITERATIONS [SEED]]     (default 200000, 1)
 * prints one TAP line.  With -DFUZZ_LIBFUZZER (clang -fsanitize=fuzzer) it
 * is a libFuzzer target instead, seeded by tools/fuzz-seeds.sh (whose
 * signed seeds are for the nonce and token below).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hmac.h"
#include "lib/text.h"
#include "serve/serve.h"
#include "fuzz_util.h"

#define NONCE "00112233445566778899aabbccddeeff"
#define TOKEN "0123456789abcdef0123456789abcdef"

static int fails;

#define FAIL(...) do { printf("# " __VA_ARGS__); printf("\n"); fails++; } while (0)

/* The MACHINE line of INFO, as a client parses it: refused with a
   printable message, or accepted as an object of the known keys only, each
   of its type, text printable and bounded.  Tried as sent ("MACHINE " and
   the stream) so that the JSON parser is reached. */
static void check_info(const char *buf, size_t len)
{
	static const char *const keys[] = {"hostname", "cpu_model", "cpus_online", "core_clock_hz",
					   "memory_bytes", "kernel", "arch", "cpu"};
	char line[SERVE_INFO_MAX + 16], err[300];
	size_t n = len < SERVE_INFO_MAX ? len : SERVE_INFO_MAX;
	json_t *o, *v;
	const char *k;

	memcpy(line, "MACHINE ", 8);
	memcpy(line + 8, buf, n);
	for (int pass = 0; pass < 2; pass++) {
		err[0] = '\0';
		if (serve_parse_info(pass ? line : buf, pass ? n + 8 : len, &o, err, sizeof err) < 0) {
			if (o || fz_bad_msg(err, sizeof err))
				FAIL("info refused without a printable message, or with an object");
			continue;
		}
		if (!json_is_object(o) || json_object_size(o) != 8)
			FAIL("info accepted something else than the 8 known keys");
		json_object_foreach(o, k, v) {
			int known = 0;

			for (size_t i = 0; i < 8; i++)
				known |= !strcmp(k, keys[i]);
			if (!known)
				FAIL("info passed on an unknown key");
			if (json_is_string(v) && (json_string_length(v) > 200 ||
						  !text_printable_utf8(json_string_value(v))))
				FAIL("info accepted unprintable or long text");
		}
		json_decref(o);
	}
}

/* The control-line parsers and the checksum, on the stream as one line. */
static void check_lines(const char *buf, size_t len)
{
	struct serve_req r;
	char err[200];
	int v;

	err[0] = '\0';
	if (serve_parse_hello(buf, len, &v, err, sizeof err) == 0 && (v < 0 || v > 1000000))
		FAIL("hello accepted version %d", v);
	if (serve_parse_auth(buf, len, &r, err, sizeof err) == 0) {
		size_t sl = strlen(r.signed_part);

		/* accepted: a known mode, values in range, signed part a suffix */
		if (r.mode < SERVE_ECHO || r.mode > SERVE_INFO || r.cpu < -1 || r.cpu > 4095 ||
		    (r.mode == SERVE_ECHO && (r.size == 0 || r.size > SERVE_ECHO_MAX)) ||
		    sl > len || memcmp(buf + len - sl, r.signed_part, sl) != 0 ||
		    memchr(buf, '\0', len) != NULL)
			FAIL("auth accepted a bad line (%zu bytes)", len);
	} else if (fz_bad_msg(err, sizeof err)) {
		FAIL("auth refused without a printable message");
	}
	check_info(buf, len);
	struct serve_ck a = {0}, b = {0};
	serve_ck_update(&a, buf, len);
	for (size_t i = 0; i < len; i += 3)
		serve_ck_update(&b, buf + i, len - i < 3 ? len - i : 3);
	if (serve_ck_final(&a) != serve_ck_final(&b))
		FAIL("checksum depends on how the stream is cut");
}

/* A reply: "" or one line of printable ASCII ending in '\n', in the form
   the client waits for in that state. */
static void check_reply(const char *out, enum serve_hs_state before, enum serve_hs_state after)
{
	size_t n = strnlen(out, SERVE_REPLY_MAX);
	char body[SERVE_REPLY_MAX];

	if (n == SERVE_REPLY_MAX) {
		FAIL("reply not terminated");
		return;
	}
	if (n == 0) {
		if (after != before && !(before == SERVE_HS_AUTH && after == SERVE_HS_OK))
			FAIL("state %d -> %d without a reply", before, after);
		return;
	}
	memcpy(body, out, n - 1);
	body[n - 1] = '\0';
	if (out[n - 1] != '\n' || memchr(out, '\n', n - 1) || fz_bad_msg(body, sizeof body)) {
		FAIL("reply is not one printable line: '%.60s'", out);
		return;
	}
	if (before == SERVE_HS_HELLO && after == SERVE_HS_AUTH) {
		if (strcmp(out, "SYSMETER 1 CHALLENGE " NONCE " auth\n") != 0 &&
		    strcmp(out, "SYSMETER 1 CHALLENGE " NONCE " open\n") != 0)
			FAIL("bad challenge '%.60s'", out);
	} else if (after != SERVE_HS_FAILED) {
		FAIL("a reply '%.60s' without a challenge or a refusal", out);
	} else if (strncmp(out, before == SERVE_HS_HELLO ? "SYSMETER 1 ERR " : "ERR ",
			   before == SERVE_HS_HELLO ? 15 : 4) != 0) {
		FAIL("refusal '%.60s' not in the form the client waits for", out);
	}
}

/* Feed the stream in pieces (sizes from seed; 0 = all at once); the final
   state, the replies concatenated and the bytes taken. */
static enum serve_hs_state run_hs(const char *s, size_t len, int auth, unsigned seed,
				  struct serve_hs *h, char *replies, size_t cap, size_t *taken)
{
	static const unsigned char token[] = TOKEN;
	char out[SERVE_REPLY_MAX];
	size_t at = 0, rl = 0;
	unsigned x = seed * 2654435761u + 1;

	serve_hs_init(h, NONCE, auth ? token : NULL, auth ? sizeof token - 1 : 0);
	replies[0] = '\0';
	while (at < len) {
		size_t piece = seed ? 1 + (x >> 16) % 40 : len - at, used;
		enum serve_hs_state before = h->state, after;

		x = x * 1103515245u + 12345u;
		if (piece > len - at)
			piece = len - at;
		after = serve_hs_feed(h, s + at, piece, &used, out, sizeof out);
		if (after != h->state)
			FAIL("returned state %d is not the state %d", after, h->state);
		if (before == SERVE_HS_OK || before == SERVE_HS_FAILED) {
			if (used || out[0] || after != before)
				FAIL("a finished handshake took more");
			break;
		}
		check_reply(out, before, after);
		if (used > piece || (used == 0 && after == before))
			FAIL("took %zu of %zu bytes in state %d", used, piece, before);
		if (after != SERVE_HS_FAILED && used && memchr(s + at, '\n', used - 1))
			FAIL("took past the end of a line");
		size_t ol = strlen(out);
		if (rl + ol < cap) {
			memcpy(replies + rl, out, ol + 1);
			rl += ol;
		}
		at += used;
		if (used == 0)
			break;
	}
	*taken = at;
	return h->state;
}

static void check_hs(const char *s, size_t len, int auth, unsigned seed)
{
	static char r1[4096], r2[4096];
	struct serve_hs a, b;
	size_t ta, tb;
	enum serve_hs_state sa = run_hs(s, len, auth, seed, &a, r1, sizeof r1, &ta),
			    sb = run_hs(s, len, auth, 0, &b, r2, sizeof r2, &tb);

	if (sa != sb || strcmp(r1, r2) != 0 || (sa == SERVE_HS_OK && ta != tb))
		FAIL("the handshake depends on how the stream is cut (%d/%d)", sa, sb);
	if (sa == SERVE_HS_FAILED && fz_bad_msg(a.why, sizeof a.why))
		FAIL("a refusal without a printable reason");
	if (sa != SERVE_HS_OK)
		return;
	/* accepted: exactly two lines taken, HELLO then AUTH, and the MAC right */
	const char *nl1 = memchr(s, '\n', ta), *nl2 = nl1 ? memchr(nl1 + 1, '\n', ta - (size_t)(nl1 + 1 - s)) : NULL;
	if (!nl1 || !nl2 || (size_t)(nl2 + 1 - s) != ta || strncmp(s, "SYSMETER ", 9) != 0 ||
	    strncmp(nl1 + 1, "AUTH ", 5) != 0)
		FAIL("accepted without HELLO and AUTH as its only lines");
	if (auth) {
		char msg[SERVE_LINE_MAX + 40], want[65];

		snprintf(msg, sizeof msg, "%s %s", NONCE, a.req.signed_part);
		if (hmac_sha256_hex(TOKEN, strlen(TOKEN), msg, want) < 0 || strcmp(want, a.req.mac) != 0)
			FAIL("accepted a wrong MAC");
	}
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* The stream as u64s: used, max, then 16-byte frame headers. */
static void check_frames(const unsigned char *p, size_t len)
{
	uint64_t used, max;
	char err[200];

	if (len < 16)
		return;
	used = get64(p);
	max = get64(p + 8);
	for (size_t at = 16; at + 16 <= len; at += 16) {
		uint64_t flen = 12345, sum;
		int k = serve_sink_header(p + at, used, max, &flen, err, sizeof err);
		int fits = used <= max && !__builtin_add_overflow(used, get64(p + at + 8), &sum) &&
			   sum <= max;

		if (serve_budget_fits(used, get64(p + at + 8), max) != fits)
			FAIL("budget: %llu more on %llu of %llu", (unsigned long long)get64(p + at + 8),
			     (unsigned long long)used, (unsigned long long)max);
		if (k == 1 && (flen == 0 || flen != get64(p + at + 8) || !fits ||
			       get64(p + at) != SERVE_SINK_MAGIC))
			FAIL("frame of %llu accepted on %llu of %llu", (unsigned long long)flen,
			     (unsigned long long)used, (unsigned long long)max);
		if (k == 0 && (get64(p + at + 8) != 0 || get64(p + at) != SERVE_SINK_MAGIC))
			FAIL("an end that is not one");
		if (k == -1 && (fz_bad_msg(err, sizeof err) ||
				(get64(p + at) == SERVE_SINK_MAGIC && fits)))
			FAIL("a frame refused wrongly or without a message");
		if (k < -1 || k > 1)
			FAIL("sink header returned %d", k);
		if (k != 1)
			return;
		used += flen;
	}
}

static void check(const uint8_t *data, size_t size)
{
	if (size == 0)
		return;
	check_lines((const char *)data + 1, size - 1);
	check_hs((const char *)data + 1, size - 1, data[0] & 1, data[0] >> 1);
	check_frames(data + 1, size - 1);
}

#ifdef FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check(data, size);
	if (fails)
		abort();
	return 0;
}
#else
static const char *const builtin[] = {
	"SYSMETER 1 HELLO",
	"SYSMETER 2 HELLO",
	"SYSMETER 999999 HELLO",
	"AUTH - ECHO size=64",
	"AUTH - ECHO size=64 cpu=1",
	"AUTH 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef SINK cpu=0 rcvbuf=65536",
	"AUTH - SINK",
	"AUTH - CONN close=client cpu=3",
	"AUTH - CONN close=server",
	"AUTH - ECHO size=1048576",
	"AUTH - ECHO size=0",
	"AUTH - ECHO size=64 size=64",
	"AUTH - NOPE",
	"AUTH  - ECHO size=64",
	"SYSMETER 1 HELLO\nAUTH - ECHO size=64\n",
	"SYSMETER 1 HELLO\nAUTH - SINK cpu=1\nSYMSI",
	"SYSMETER 1 HELLO\r\nAUTH - CONN close=server\n",
	"SYSMETER 7 HELLO\n",
	"AUTH - INFO",
	"SYSMETER 1 HELLO\nAUTH - INFO\n",
	"MACHINE {\"hostname\":\"vm\",\"cpu_model\":\"AMD EPYC\",\"cpus_online\":2,"
	"\"core_clock_hz\":2.5e9,\"memory_bytes\":25276063744,\"kernel\":\"Linux 6\","
	"\"arch\":\"x86_64\",\"cpu\":{\"vendor\":\"AuthenticAMD\",\"family\":23,"
	"\"model\":1,\"stepping\":2,\"microarchitecture\":\"Zen\"}}",
	"{\"hostname\":null,\"cpu\":{\"family\":-1},\"x\":[1,2]}",
};

static const char *const tokens[] = {
	"SYSMETER", "HELLO", "AUTH", "ECHO", "SINK", "CONN", "size=", "cpu=", "rcvbuf=", "close=",
	"client", "server", " ", "\n", "-", "=", "1", "0", "4095", "1048576", "18446744073709551615",
	"\r", "\x00", "\xff", "f", "SYMSINK1", "INFO", "MACHINE ", "{", "}", "\"", ":", ",",
	"null", "\\u0000", "1e308",
};

/* A SINK header, little-endian, into p. */
static void put64(char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (char)(v >> (8 * i));
}

int main(int argc, char **argv)
{
	unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000, done = 0;
	struct fz_corpus corpus = {0}, regress = {0};
	static char buf[2048];
	char msg[SERVE_LINE_MAX + 40], mac[65], line[SERVE_LINE_MAX + 100];
	double t0 = fz_now();

	fz_rng = argc > 2 ? strtoull(argv[2], NULL, 10) | 1 : 1;
	printf("1..1\n");
	for (size_t i = 0; i < sizeof builtin / sizeof *builtin; i++)
		fz_add(&corpus, builtin[i], strlen(builtin[i]));
	/* handshakes signed for the harness's nonce and token */
	static const char *const signed_req[] = {"ECHO size=64", "SINK cpu=0 rcvbuf=65536",
						 "CONN close=client"};
	for (size_t i = 0; i < sizeof signed_req / sizeof *signed_req; i++) {
		snprintf(msg, sizeof msg, "%s %s", NONCE, signed_req[i]);
		if (hmac_sha256_hex(TOKEN, strlen(TOKEN), msg, mac) < 0)
			abort();
		snprintf(line, sizeof line, "SYSMETER 1 HELLO\nAUTH %s %s\n", mac, signed_req[i]);
		fz_add(&corpus, line, strlen(line));
	}
	/* budgets and frames: used, max, headers (one of 2^64-1 after one of 1) */
	char fr[64];
	put64(fr, 0);
	put64(fr + 8, 1u << 20);
	put64(fr + 16, SERVE_SINK_MAGIC);
	put64(fr + 24, 1);
	put64(fr + 32, SERVE_SINK_MAGIC);
	put64(fr + 40, UINT64_MAX);
	put64(fr + 48, SERVE_SINK_MAGIC);
	put64(fr + 56, 0);
	fz_add(&corpus, fr, sizeof fr);
	fz_add_dir(&regress, "tests/fuzz/regress/serve", "", 1 << 16);
	for (size_t i = 0; i < regress.n; i++)
		check((const uint8_t *)regress.text[i], regress.len[i]);
	for (size_t i = 0; i < corpus.n; i++)
		for (int f = 0; f < 8; f++) {
			buf[0] = (char)f;
			memcpy(buf + 1, corpus.text[i], corpus.len[i]);
			check((const uint8_t *)buf, corpus.len[i] + 1);
		}
	/* the signed ones must be accepted, the open ones too */
	for (size_t i = 0; i < corpus.n; i++) {
		struct serve_hs h;
		char r[1024];
		size_t taken;
		int auth = strncmp(corpus.text[i], "SYSMETER 1 HELLO\nAUTH ", 22) == 0 &&
			   corpus.text[i][22] != '-';

		if (strncmp(corpus.text[i], "SYSMETER 1 HELLO\nAUTH ", 22) == 0 &&
		    run_hs(corpus.text[i], corpus.len[i], auth, 3, &h, r, sizeof r, &taken) !=
		    SERVE_HS_OK)
			FAIL("a valid handshake refused: %s", h.why);
	}
	for (; done < iters && fails < 10; done++) {
		buf[0] = (char)fz_next();
		size_t n = fz_mutate(&corpus, tokens, sizeof tokens / sizeof *tokens, buf + 1,
				     sizeof buf - 1);
		check((const uint8_t *)buf, n + 1);
	}
	printf("%s 1 - fuzz_serve: %zu seeds, %zu regression inputs, %lu mutated streams: "
	       "line parsers, handshakes (cut in pieces), frame headers and budgets held (%.1f s)\n",
	       fails ? "not ok" : "ok", corpus.n, regress.n, done, fz_now() - t0);
	fz_free(&corpus);
	fz_free(&regress);
	return fails ? 1 : 0;
}
#endif
