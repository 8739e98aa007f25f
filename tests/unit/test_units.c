/*
 * test_units.c - units.c: parsing sizes, times, rates, fractions, ints,
 * bools, values in a probe's unit, and formatting.  Table-driven.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "lib/units.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct parse_case {
	enum unit_kind kind;
	const char *text;
	double want;		/* base units; NAN = must fail */
	const char *err;	/* expected message when it fails (NULL: not checked) */
};

static const struct parse_case parse_cases[] = {
	/* sizes */
	{UNIT_SIZE, "512", 512, NULL},
	{UNIT_SIZE, "512B", 512, NULL},
	{UNIT_SIZE, "4KiB", 4096, NULL},
	{UNIT_SIZE, "4 KiB", 4096, NULL},
	{UNIT_SIZE, " 64k ", 65536, NULL},
	{UNIT_SIZE, "64K", 65536, NULL},
	{UNIT_SIZE, "2M", 2097152, NULL},
	{UNIT_SIZE, "1G", 1073741824, NULL},
	{UNIT_SIZE, "1MiB", 1048576, NULL},
	{UNIT_SIZE, "512MiB", 536870912, NULL},
	{UNIT_SIZE, "1GiB", 1073741824, NULL},
	{UNIT_SIZE, "2TiB", 2199023255552.0, NULL},
	{UNIT_SIZE, "1.5GB", 1.5e9, NULL},
	{UNIT_SIZE, "1.5KiB", 1536, NULL},
	{UNIT_SIZE, "10KB", 10000, NULL},
	{UNIT_SIZE, "3MB", 3e6, NULL},
	{UNIT_SIZE, "1e3", 1000, NULL},
	{UNIT_SIZE, "4Kx", NAN, "expected a size like 4KiB or 1.5GB, got '4Kx'"},
	{UNIT_SIZE, "4Kb2", NAN, "expected a size like 4KiB or 1.5GB, got '4Kb2'"},
	{UNIT_SIZE, "-4KiB", NAN, NULL},
	{UNIT_SIZE, "KiB", NAN, NULL},
	{UNIT_SIZE, "", NAN, "expected a size like 4KiB or 1.5GB, got ''"},
	{UNIT_SIZE, "0x10", NAN, NULL},
	{UNIT_SIZE, "inf", NAN, NULL},
	{UNIT_SIZE, "nan", NAN, NULL},
	{UNIT_SIZE, "1e999", NAN, NULL},
	{UNIT_SIZE, "4kib", NAN, NULL},	/* case matters: MB vs Mb */
	{UNIT_SIZE, "1Mb", NAN, NULL},
	/* times */
	{UNIT_TIME, "800ns", 800e-9, NULL},
	{UNIT_TIME, "10us", 10e-6, NULL},
	{UNIT_TIME, "10\xc2\xb5s", 10e-6, NULL},
	{UNIT_TIME, "10\xce\xbcs", 10e-6, NULL},
	{UNIT_TIME, "2ms", 2e-3, NULL},
	{UNIT_TIME, "1.5s", 1.5, NULL},
	{UNIT_TIME, "2m", 120, NULL},
	{UNIT_TIME, "1h", 3600, NULL},
	{UNIT_TIME, "3", 3, NULL},
	{UNIT_TIME, "0.25", 0.25, NULL},
	{UNIT_TIME, "0s", 0, NULL},
	{UNIT_TIME, "10xs", NAN, "expected a time like 10ms or 2s, got '10xs'"},
	{UNIT_TIME, "-1s", NAN, NULL},
	{UNIT_TIME, "1 day", NAN, NULL},
	/* rates */
	{UNIT_RATE, "12GB/s", 12e9, NULL},
	{UNIT_RATE, "800MiB/s", 800 * 1048576.0, NULL},
	{UNIT_RATE, "1Gbit/s", 1e9 / 8, NULL},
	{UNIT_RATE, "10Mbps", 10e6 / 8, NULL},
	{UNIT_RATE, "1Gbps", 1e9 / 8, NULL},
	{UNIT_RATE, "100Kbit/s", 100e3 / 8, NULL},
	{UNIT_RATE, "5B/s", 5, NULL},
	{UNIT_RATE, "5", 5, NULL},
	{UNIT_RATE, "2KiB/s", 2048, NULL},
	{UNIT_RATE, "1KB/s", 1000, NULL},
	{UNIT_RATE, "12GB", NAN, "expected a rate like 12GB/s or 1Gbit/s, got '12GB'"},
	{UNIT_RATE, "1Gb/s", 1e9 / 8, NULL},	/* a lowercase b: bits */
	{UNIT_RATE, "51.2 GB/s", 51.2e9, NULL},
	{UNIT_RATE, "2.5 Gbit/s", 2.5e9 / 8, NULL},
	/* frequencies */
	{UNIT_FREQ, "2.8GHz", 2.8e9, NULL},
	{UNIT_FREQ, "800 MHz", 800e6, NULL},
	{UNIT_FREQ, "2.8e9", 2.8e9, NULL},
	{UNIT_FREQ, "100kHz", 1e5, NULL},
	{UNIT_FREQ, "-1GHz", NAN, NULL},
	{UNIT_FREQ, "2.8 Ghz", NAN, "expected a frequency like 2.8GHz or 800MHz, got '2.8 Ghz'"},
	/* fractions */
	{UNIT_PERCENT, "1%", 0.01, NULL},
	{UNIT_PERCENT, "0.25", 0.25, NULL},
	{UNIT_PERCENT, "-50%", -0.5, NULL},
	{UNIT_PERCENT, "+100%", 1.0, NULL},
	{UNIT_PERCENT, "12.5 %", 0.125, NULL},
	{UNIT_PERCENT, "5 percent", NAN, "expected a fraction like 0.25 or 25%, got '5 percent'"},
	/* plain numbers */
	{UNIT_NUMBER, "2", 2, NULL},
	{UNIT_NUMBER, "-2.5e-3", -2.5e-3, NULL},
	{UNIT_NUMBER, ".5", 0.5, NULL},
	{UNIT_NUMBER, "5.", 5, NULL},
	{UNIT_NUMBER, "2x", NAN, "expected a number, got '2x'"},
	{UNIT_NUMBER, ".", NAN, NULL},
	{UNIT_NUMBER, "1E", NAN, NULL},
};

struct int_case {
	const char *text;
	long long want;
	int ok;
	const char *err;
};

static const struct int_case int_cases[] = {
	{"15", 15, 1, NULL},
	{"-20", -20, 1, NULL},
	{"+7", 7, 1, NULL},
	{" 42 ", 42, 1, NULL},
	{"9223372036854775807", 9223372036854775807LL, 1, NULL},
	{"1.5", 0, 0, "expected an integer, got '1.5'"},
	{"1e3", 0, 0, NULL},
	{"0x10", 0, 0, NULL},
	{"", 0, 0, "expected an integer, got ''"},
	{"many", 0, 0, "expected an integer, got 'many'"},
	{"99999999999999999999", 0, 0, "integer out of range, got '99999999999999999999'"},
};

struct bool_case {
	const char *text;
	int want;		/* -1 = must fail */
};

static const struct bool_case bool_cases[] = {
	{"true", 1}, {"True", 1}, {"yes", 1}, {"on", 1}, {"1", 1},
	{"false", 0}, {"FALSE", 0}, {"no", 0}, {"off", 0}, {"0", 0},
	{"maybe", -1}, {"", -1}, {"2", -1},
};

struct in_case {
	const char *text, *unit;
	double want;		/* NAN = must fail */
	const char *err;
};

static const struct in_case in_cases[] = {
	{"1.2ns", "us", 0.0012, NULL},
	{"1.2ns", "ns", 1.2, NULL},
	{"1.2", "ns", 1.2, NULL},
	{"2us", "ns", 2000, NULL},
	{"1ms", "ns/op", 1e6, NULL},
	{"3ns/op", "ns/op", 3, NULL},
	{"1s", "ms", 1000, NULL},
	{"90ns", "ns", 90, NULL},
	{"5GB", "ns", NAN, "expected a number in ns or a time like 10ns, got '5GB'"},
	{"12GB/s", "GB/s", 12, NULL},
	{"1Gbit/s", "MB/s", 125, NULL},
	{"1GiB/s", "MiB/s", 1024, NULL},
	{"800MB/s", "bytes/s", 8e8, NULL},
	{"7", "GB/s", 7, NULL},
	{"1ms", "GB/s", NAN, "expected a number in GB/s or a rate like 12GB/s, got '1ms'"},
	{"1000", "ops/s", 1000, NULL},
	{"1000 ops/s", "ops/s", 1000, NULL},
	{"1000ops/s", "ops/s", 1000, NULL},
	{"1k", "ops/s", NAN, "expected a number in ops/s, got '1k'"},
	{"2KiB", "bytes", 2048, NULL},
	{"42", "", 42, NULL},
	{"42x", "", NAN, "expected a number, got '42x'"},
};

struct fmt_case {
	int time;		/* 0 = size */
	double v;
	const char *want;
};

static const struct fmt_case fmt_cases[] = {
	{0, 4096, "4KiB"},
	{0, 1536, "1.5KiB"},
	{0, 100, "100B"},
	{0, 0, "0B"},
	{0, 1000, "1000B"},
	{0, 1048576, "1MiB"},
	{0, 536870912, "512MiB"},
	{0, 1073741824, "1GiB"},
	{0, 3 * 1073741824.0, "3GiB"},
	{0, 1099511627776.0, "1TiB"},
	{0, 1099511627777.0, "1099511627777B"},
	{0, 3145729, "3145729B"},
	{0, 2304, "2.25KiB"},
	{0, 1024 * 1023, "1023KiB"},
	{1, 0.01, "10ms"},
	{1, 0, "0s"},
	{1, 2, "2s"},
	{1, 120, "120s"},
	{1, 1.5e-6, "1.5us"},
	{1, 800e-9, "800ns"},
	{1, 0.001, "1ms"},
	{1, 0.0025, "2.5ms"},
};

int main(void)
{
	char err[256], buf[64], name[160];

	for (size_t i = 0; i < N(parse_cases); i++) {
		const struct parse_case *c = &parse_cases[i];
		double v = -12345;
		int rc;

		err[0] = '\0';
		rc = units_parse(c->text, c->kind, &v, err, sizeof(err));
		snprintf(name, sizeof(name), "units_parse(\"%s\", kind %d)", c->text, (int)c->kind);
		if (isnan(c->want)) {
			ok(rc == -1, "%s fails", name);
			if (c->err)
				is_str(err, c->err, "  message");
		} else {
			ok(rc == 0, "%s succeeds%s%s", name, rc ? ": " : "", rc ? err : "");
			is_num(v, c->want, fabs(c->want) * 1e-12, "  value");
		}
	}
	for (size_t i = 0; i < N(int_cases); i++) {
		const struct int_case *c = &int_cases[i];
		long long v = -1;
		int rc = units_parse_int(c->text, &v, err, sizeof(err));

		snprintf(name, sizeof(name), "units_parse_int(\"%s\")", c->text);
		if (c->ok) {
			ok(rc == 0 && v == c->want, "%s == %lld", name, c->want);
		} else {
			ok(rc == -1, "%s fails", name);
			if (c->err)
				is_str(err, c->err, "  message");
		}
	}
	for (size_t i = 0; i < N(bool_cases); i++) {
		const struct bool_case *c = &bool_cases[i];
		int v = -1, rc = units_parse_bool(c->text, &v, err, sizeof(err));

		if (c->want < 0)
			ok(rc == -1, "units_parse_bool(\"%s\") fails", c->text);
		else
			ok(rc == 0 && v == c->want, "units_parse_bool(\"%s\") == %d", c->text, c->want);
	}
	is_str((units_parse_bool("maybe", &(int){0}, err, sizeof(err)), err),
	       "expected true or false, got 'maybe'", "units_parse_bool message");
	for (size_t i = 0; i < N(in_cases); i++) {
		const struct in_case *c = &in_cases[i];
		double v = -1;
		int rc;

		err[0] = '\0';
		rc = units_parse_in(c->text, c->unit, &v, err, sizeof(err));
		snprintf(name, sizeof(name), "units_parse_in(\"%s\", \"%s\")", c->text, c->unit);
		if (isnan(c->want)) {
			ok(rc == -1, "%s fails", name);
			if (c->err)
				is_str(err, c->err, "  message");
		} else {
			ok(rc == 0, "%s succeeds%s%s", name, rc ? ": " : "", rc ? err : "");
			is_num(v, c->want, fabs(c->want) * 1e-12, "  value");
		}
	}
	{
		static const char *const t[] = {"ns", "us", "\xc2\xb5s", "ms", "s", "ns/op", "us/op"};
		static const double ns[] = {1, 1e3, 1e3, 1e6, 1e9, 1, 1e3};
		static const char *const not_t[] = {"GB/s", "ops/s", "", "m", "h", "bytes", "cycles"};
		double f;

		for (size_t i = 0; i < N(t); i++) {
			f = 0;
			ok(units_is_time(t[i], &f) && f == ns[i], "units_is_time(\"%s\") = %g ns", t[i],
			   ns[i]);
		}
		for (size_t i = 0; i < N(not_t); i++)
			ok(!units_is_time(not_t[i], NULL), "units_is_time(\"%s\") is false", not_t[i]);
		ok(!units_is_time(NULL, NULL), "units_is_time(NULL) is false");
	}
	for (size_t i = 0; i < N(fmt_cases); i++) {
		const struct fmt_case *c = &fmt_cases[i];
		double back = -1;

		if (c->time)
			units_format_time(c->v, buf, sizeof(buf));
		else
			units_format_size(c->v, buf, sizeof(buf));
		snprintf(name, sizeof(name), "units_format_%s(%.17g)", c->time ? "time" : "size", c->v);
		is_str(buf, c->want, name);
		/* what we print, we can read back */
		ok(units_parse(buf, c->time ? UNIT_TIME : UNIT_SIZE, &back, err, sizeof(err)) == 0 &&
		   fabs(back - c->v) <= fabs(c->v) * 1e-9, "  reads back");
	}
	/* a message never overflows the buffer it is given */
	{
		char small[8];
		ok(units_parse("garbage!", UNIT_SIZE, &(double){0}, small, sizeof(small)) == -1 &&
		   strlen(small) == sizeof(small) - 1, "message truncated to the buffer");
	}
	return done_testing();
}
