/*
 * fuzz_serve.c - the serve protocol's control-line parsers
 * (serve_parse_hello, serve_parse_auth) and its checksum against a corpus
 * of valid and near-valid lines and random mutations of them.
 *
 * Built by `make unit` as $(BUILD)/tests/test_fuzz_serve (a plain main(),
 * so gcc and the ASan+UBSan build run it in `make test`):
 *     test_fuzz_serve [ITERATIONS [SEED]]     (default 200000, 1)
 * prints one TAP line.  With -DFUZZ_LIBFUZZER (clang -fsanitize=fuzzer) it
 * is a libFuzzer target instead.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "serve/serve.h"

/* used by the plain mode; libFuzzer is seeded by tools/fuzz-seeds.sh */
static const char *const corpus[] __attribute__((unused)) = {
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
};

static int fails;

static void check(const char *buf, size_t len)
{
	struct serve_req r;
	char err[200];
	int v;

	err[0] = '\0';
	if (serve_parse_hello(buf, len, &v, err, sizeof err) == 0 && (v < 0 || v > 1000000)) {
		printf("# hello accepted version %d\n", v);
		fails++;
	}
	if (serve_parse_auth(buf, len, &r, err, sizeof err) == 0) {
		size_t sl = strlen(r.signed_part);

		/* accepted: a known mode, values in range, signed part a suffix */
		if (r.mode < SERVE_ECHO || r.mode > SERVE_CONN || r.cpu < -1 || r.cpu > 4095 ||
		    (r.mode == SERVE_ECHO && (r.size == 0 || r.size > SERVE_ECHO_MAX)) ||
		    sl > len || memcmp(buf + len - sl, r.signed_part, sl) != 0 ||
		    memchr(buf, '\0', len) != NULL) {
			printf("# auth accepted a bad line (%zu bytes)\n", len);
			fails++;
		}
	} else if (!err[0] || strlen(err) >= sizeof err) {
		printf("# auth refused without a message\n");
		fails++;
	}
	struct serve_ck a = {0}, b = {0};
	serve_ck_update(&a, buf, len);
	for (size_t i = 0; i < len; i += 3)
		serve_ck_update(&b, buf + i, len - i < 3 ? len - i : 3);
	if (serve_ck_final(&a) != serve_ck_final(&b)) {
		printf("# checksum depends on how the stream is cut\n");
		fails++;
	}
}

#ifdef FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check((const char *)data, size);
	if (fails)
		abort();
	return 0;
}
#else
static uint64_t rng;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A mutation of a corpus line (or of random bytes) into buf; its length. */
static size_t mutate(char *buf, size_t cap)
{
	size_t n;

	if (next() % 8 == 0) {
		n = next() % cap;
		for (size_t i = 0; i < n; i++)
			buf[i] = (char)next();
		return n;
	}
	const char *c = corpus[next() % (sizeof corpus / sizeof *corpus)];
	n = strlen(c);
	memcpy(buf, c, n);
	for (int k = (int)(next() % 6); k > 0; k--) {
		size_t at = n ? next() % n : 0;
		switch (next() % 5) {
		case 0: if (n) buf[at] = (char)next(); break;		/* flip a byte */
		case 1: if (n) buf[at] = "0123456789 =-abcfAUTHSINK\n"[next() % 26]; break;
		case 2: if (n < cap - 1) { memmove(buf + at + 1, buf + at, n - at); buf[at] = (char)next(); n++; } break;
		case 3: if (n) { memmove(buf + at, buf + at + 1, n - at - 1); n--; } break;
		default: {						/* repeat a tail */
			size_t len = next() % 40, span = n - at ? n - at : 1;
			for (size_t i = 0; i < len && n < cap; i++) {
				buf[n] = buf[at + i % span];
				n++;
			}
		}
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
	char buf[600];
	clock_t t0 = clock();

	rng = argc > 2 ? strtoull(argv[2], NULL, 10) | 1 : 1;
	printf("1..1\n");
	for (size_t i = 0; i < sizeof corpus / sizeof *corpus; i++)
		check(corpus[i], strlen(corpus[i]));
	for (unsigned long i = 0; i < iters && fails < 10; i++) {
		size_t n = mutate(buf, sizeof buf);
		check(buf, n);
	}
	printf("%s 1 - fuzz_serve: %lu mutated control lines, parsers and checksum held (%.1f s CPU)\n",
	       fails ? "not ok" : "ok", iters, (double)(clock() - t0) / CLOCKS_PER_SEC);
	return fails ? 1 : 0;
}
#endif
