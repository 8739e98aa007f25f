/*
 * units.c - quantities with units: sizes, times, rates, fractions.
 *
 * A quantity is a number (sign, digits, optional fraction and exponent; no
 * hex, inf or nan: strtod alone would accept those) followed, after optional
 * blanks, by a unit suffix looked up in a per-kind table.  Suffix tables are
 * case-sensitive on purpose: "MB" (10^6) and "Mb" (megabit) differ, and a
 * guess would turn a typo into a wrong number instead of an error.
 */
#include "lib/units.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct suffix {
	const char *s;
	double f;		/* base units per unit */
};

#define KI 1024.0
#define MI (1024.0 * 1024.0)
#define GI (1024.0 * 1024.0 * 1024.0)
#define TI (1024.0 * 1024.0 * 1024.0 * 1024.0)

static const struct suffix size_sfx[] = {
	{"", 1}, {"B", 1}, {"byte", 1}, {"bytes", 1},
	{"KiB", KI}, {"MiB", MI}, {"GiB", GI}, {"TiB", TI},
	{"Ki", KI}, {"Mi", MI}, {"Gi", GI}, {"Ti", TI},
	/* shorthand, binary as in most tools' option parsers (fio, dd) */
	{"k", KI}, {"K", KI}, {"M", MI}, {"G", GI}, {"T", TI},
	{"KB", 1e3}, {"kB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
};

static const struct suffix time_sfx[] = {
	{"", 1}, {"s", 1}, {"sec", 1},
	{"ms", 1e-3}, {"us", 1e-6}, {"\xc2\xb5s", 1e-6} /* µ micro sign */,
	{"\xce\xbcs", 1e-6} /* μ greek mu */, {"ns", 1e-9},
	{"m", 60}, {"min", 60}, {"h", 3600},
};

static const struct suffix rate_sfx[] = {
	{"", 1}, {"B/s", 1}, {"bytes/s", 1},
	{"KB/s", 1e3}, {"kB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9}, {"TB/s", 1e12},
	{"KiB/s", KI}, {"MiB/s", MI}, {"GiB/s", GI}, {"TiB/s", TI},
	{"bit/s", 1 / 8.0}, {"bps", 1 / 8.0},
	{"Kbit/s", 1e3 / 8}, {"kbit/s", 1e3 / 8}, {"Mbit/s", 1e6 / 8},
	{"Gbit/s", 1e9 / 8}, {"Tbit/s", 1e12 / 8},
	{"Kbps", 1e3 / 8}, {"kbps", 1e3 / 8}, {"Mbps", 1e6 / 8}, {"Gbps", 1e9 / 8},
	/* a lowercase b is a bit, as network links are quoted ("1Gb/s") */
	{"Kb/s", 1e3 / 8}, {"kb/s", 1e3 / 8}, {"Mb/s", 1e6 / 8}, {"Gb/s", 1e9 / 8},
	{"Tb/s", 1e12 / 8},
};

static const struct suffix freq_sfx[] = {
	{"", 1}, {"Hz", 1}, {"kHz", 1e3}, {"KHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9},
};

static const struct suffix pct_sfx[] = { {"", 1}, {"%", 0.01} };
static const struct suffix num_sfx[] = { {"", 1} };

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Scan a decimal number at p; *end after it.  Returns 0 or -1. */
static int scan_number(const char *p, double *v, const char **end)
{
	const char *q = p;
	int digits = 0;
	char buf[80];

	if (*q == '+' || *q == '-')
		q++;
	while (isdigit((unsigned char)*q))
		q++, digits++;
	if (*q == '.') {
		q++;
		while (isdigit((unsigned char)*q))
			q++, digits++;
	}
	if (!digits)
		return -1;
	if (*q == 'e' || *q == 'E') {
		/* only an exponent if digits follow: "1E" is not a number */
		const char *e = q + 1;
		if (*e == '+' || *e == '-')
			e++;
		if (isdigit((unsigned char)*e)) {
			while (isdigit((unsigned char)*e))
				e++;
			q = e;
		}
	}
	if ((size_t)(q - p) >= sizeof(buf))
		return -1;
	memcpy(buf, p, (size_t)(q - p));
	buf[q - p] = '\0';
	*v = strtod(buf, NULL);
	if (!isfinite(*v))
		return -1;
	*end = q;
	return 0;
}

/* Copy text without surrounding blanks into buf; -1 if it does not fit. */
static int trimmed(const char *text, char *buf, size_t len)
{
	size_t n;

	while (isspace((unsigned char)*text))
		text++;
	n = strlen(text);
	while (n && isspace((unsigned char)text[n - 1]))
		n--;
	if (n >= len)
		return -1;
	memcpy(buf, text, n);
	buf[n] = '\0';
	return 0;
}

/* number [blanks] suffix, suffix from tab; *f receives the suffix factor. */
static int parse_table(const char *text, const struct suffix *tab, size_t n, int allow_neg,
		       double *num, double *f)
{
	char buf[128];
	const char *p, *end;
	double v;

	if (!text || trimmed(text, buf, sizeof(buf)) < 0)
		return -1;
	p = buf;
	if (scan_number(p, &v, &end) < 0)
		return -1;
	if (!allow_neg && v < 0)
		return -1;
	while (*end == ' ' || *end == '\t')
		end++;
	for (size_t i = 0; i < n; i++)
		if (strcmp(end, tab[i].s) == 0) {
			*num = v;
			*f = tab[i].f;
			return 0;
		}
	return -1;
}

static const char *expect_text(enum unit_kind kind)
{
	switch (kind) {
	case UNIT_SIZE: return "a size like 4KiB or 1.5GB";
	case UNIT_TIME: return "a time like 10ms or 2s";
	case UNIT_RATE: return "a rate like 12GB/s or 1Gbit/s";
	case UNIT_PERCENT: return "a fraction like 0.25 or 25%";
	case UNIT_FREQ: return "a frequency like 2.8GHz or 800MHz";
	case UNIT_NUMBER: break;
	}
	return "a number";
}

int units_parse(const char *text, enum unit_kind kind, double *out, char *err, size_t errlen)
{
	const struct suffix *tab = num_sfx;
	size_t n = N(num_sfx);
	int neg = 1;
	double v, f;

	switch (kind) {
	case UNIT_SIZE: tab = size_sfx; n = N(size_sfx); neg = 0; break;
	case UNIT_TIME: tab = time_sfx; n = N(time_sfx); neg = 0; break;
	case UNIT_RATE: tab = rate_sfx; n = N(rate_sfx); neg = 0; break;
	case UNIT_PERCENT: tab = pct_sfx; n = N(pct_sfx); break;
	case UNIT_FREQ: tab = freq_sfx; n = N(freq_sfx); neg = 0; break;
	case UNIT_NUMBER: break;
	}
	if (parse_table(text, tab, n, neg, &v, &f) < 0 || !isfinite(v * f)) {
		snprintf(err, errlen, "expected %s, got '%s'", expect_text(kind), text ? text : "");
		return -1;
	}
	*out = v * f;
	return 0;
}

int units_parse_int(const char *text, long long *out, char *err, size_t errlen)
{
	char buf[64], *end;
	const char *p = buf;
	long long v;

	if (!text || trimmed(text, buf, sizeof(buf)) < 0)
		goto bad;
	if (*p == '+' || *p == '-')
		p++;
	if (!isdigit((unsigned char)*p))	/* strtoll would skip blanks, take "0x" */
		goto bad;
	for (const char *q = p; *q; q++)
		if (!isdigit((unsigned char)*q))
			goto bad;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno == ERANGE) {
		snprintf(err, errlen, "integer out of range, got '%s'", text);
		return -1;
	}
	*out = v;
	return 0;
bad:
	snprintf(err, errlen, "expected an integer, got '%s'", text ? text : "");
	return -1;
}

int units_parse_bool(const char *text, int *out, char *err, size_t errlen)
{
	static const char *const yes[] = {"true", "yes", "on", "1"};
	static const char *const no[] = {"false", "no", "off", "0"};
	char buf[16];

	if (text && trimmed(text, buf, sizeof(buf)) == 0)
		for (size_t i = 0; i < N(yes); i++) {
			if (strcasecmp(buf, yes[i]) == 0) {
				*out = 1;
				return 0;
			}
			if (strcasecmp(buf, no[i]) == 0) {
				*out = 0;
				return 0;
			}
		}
	snprintf(err, errlen, "expected true or false, got '%s'", text ? text : "");
	return -1;
}

/* Strip a "/op" suffix ("ns/op" is a time per operation). */
static void strip_per_op(const char *unit, char *buf, size_t len)
{
	size_t n = strlen(unit);

	if (n > 3 && strcmp(unit + n - 3, "/op") == 0)
		n -= 3;
	if (n >= len)
		n = len - 1;
	memcpy(buf, unit, n);
	buf[n] = '\0';
}

int units_is_time(const char *unit, double *ns_per_unit)
{
	char u[32];

	if (!unit || !*unit)
		return 0;
	strip_per_op(unit, u, sizeof(u));
	/* only the sub-minute units: a probe reporting in minutes is not a thing */
	for (size_t i = 0; i < N(time_sfx); i++)
		if (*time_sfx[i].s && time_sfx[i].f <= 1 && strcmp(u, time_sfx[i].s) == 0) {
			if (ns_per_unit)
				*ns_per_unit = time_sfx[i].f * 1e9;
			return 1;
		}
	return 0;
}

static int lookup(const struct suffix *tab, size_t n, const char *unit, double *f)
{
	for (size_t i = 0; i < n; i++)
		if (*tab[i].s && strcmp(unit, tab[i].s) == 0) {
			*f = tab[i].f;
			return 1;
		}
	return 0;
}

int units_parse_in(const char *text, const char *probe_unit, double *out, char *err,
		   size_t errlen)
{
	const char *unit = probe_unit ? probe_unit : "";
	double v, f, uf, ns;
	char u[32];

	/* a bare number is already in the probe's unit */
	if (parse_table(text, num_sfx, 1, 1, &v, &f) == 0) {
		*out = v;
		return 0;
	}
	if (units_is_time(unit, &ns)) {
		char t[128];
		strip_per_op(text ? text : "", t, sizeof(t));
		if (parse_table(t, time_sfx, N(time_sfx), 0, &v, &f) == 0) {
			*out = v * f * 1e9 / ns;
			return 0;
		}
		snprintf(err, errlen, "expected a number in %s or a time like 10ns, got '%s'",
			 unit, text ? text : "");
		return -1;
	}
	strip_per_op(unit, u, sizeof(u));
	if (lookup(rate_sfx, N(rate_sfx), u, &uf)) {
		if (parse_table(text, rate_sfx, N(rate_sfx), 0, &v, &f) == 0) {
			*out = v * f / uf;
			return 0;
		}
		snprintf(err, errlen, "expected a number in %s or a rate like 12GB/s, got '%s'",
			 unit, text ? text : "");
		return -1;
	}
	if (lookup(size_sfx, N(size_sfx), u, &uf)) {
		if (parse_table(text, size_sfx, N(size_sfx), 0, &v, &f) == 0) {
			*out = v * f / uf;
			return 0;
		}
		snprintf(err, errlen, "expected a number in %s or a size like 4KiB, got '%s'",
			 unit, text ? text : "");
		return -1;
	}
	/* any other unit ("ops/s"): a number, optionally followed by the unit itself */
	if (*unit) {
		struct suffix self[] = { {unit, 1} };
		if (parse_table(text, self, 1, 1, &v, &f) == 0) {
			*out = v;
			return 0;
		}
		snprintf(err, errlen, "expected a number in %s, got '%s'", unit, text ? text : "");
	} else {
		snprintf(err, errlen, "expected a number, got '%s'", text ? text : "");
	}
	return -1;
}

/* %.6g of v, if that text reads back as v within tol (so it is exact). */
static int exact_g(double v, double unit, double want, double tol, char *buf, size_t len)
{
	snprintf(buf, len, "%.6g", v);
	return fabs(strtod(buf, NULL) * unit - want) <= tol;
}

void units_format_size(double bytes, char *buf, size_t len)
{
	static const struct suffix bin[] = { {"TiB", TI}, {"GiB", GI}, {"MiB", MI}, {"KiB", KI} };
	char num[64];

	if (isfinite(bytes) && bytes != 0)
		for (size_t i = 0; i < N(bin); i++) {
			double v = bytes / bin[i].f;
			/* exact to the byte; the largest unit that is exact is shortest */
			if (fabs(v) >= 1 && exact_g(v, bin[i].f, bytes, 1e-6, num, sizeof(num))) {
				snprintf(buf, len, "%s%s", num, bin[i].s);
				return;
			}
		}
	if (isfinite(bytes) && bytes == floor(bytes) && fabs(bytes) < 1e18)
		snprintf(buf, len, "%.0fB", bytes);
	else
		snprintf(buf, len, "%.6gB", bytes);
}

void units_format_time(double s, char *buf, size_t len)
{
	double a = fabs(s);

	if (s == 0 || !isfinite(s))
		snprintf(buf, len, "%gs", s);
	else if (a >= 1)
		snprintf(buf, len, "%.6gs", s);
	else if (a >= 1e-3)
		snprintf(buf, len, "%.6gms", s * 1e3);
	else if (a >= 1e-6)
		snprintf(buf, len, "%.6gus", s * 1e6);
	else
		snprintf(buf, len, "%.6gns", s * 1e9);
}

void units_format_number(double v, char *buf, size_t len)
{
	double a = fabs(v);
	int decimals;

	if (!isfinite(v)) {
		snprintf(buf, len, "n/a");
		return;
	}
	if (a == 0) {
		snprintf(buf, len, "0");
		return;
	}
	if (a < 1e-3) {
		snprintf(buf, len, "%.2e", v);
		return;
	}
	/* 3 significant digits, never fewer than the integer part */
	decimals = 2 - (int)floor(log10(a));
	if (decimals < 0)
		decimals = 0;
	snprintf(buf, len, "%.*f", decimals, v);
	if (strcmp(buf, "-0") == 0)
		snprintf(buf, len, "0");
}

void units_format_size_short(double bytes, char *buf, size_t len)
{
	static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = bytes;
	int u = 0;

	if (!isfinite(bytes)) {
		snprintf(buf, len, "n/a");
		return;
	}
	while (u < 4 && fabs(v) >= 1024 && fmod(v, 1024) == 0) {
		v /= 1024;
		u++;
	}
	/* not a multiple of 1024 but large: show 3 significant digits */
	while (u < 4 && fabs(v) >= 1024) {
		v /= 1024;
		u++;
	}
	if (v == floor(v))
		snprintf(buf, len, "%.0f%s", v, units[u]);
	else {
		char num[32];

		units_format_number(v, num, sizeof num);
		snprintf(buf, len, "%s%s", num, units[u]);
	}
}

/* The probe units tables rescale (report tables, compare): exact names
   only, so a unit like "ns/op" is shown as it is. */
static double display_time_ns(const char *u)
{
	if (!u)
		return NAN;
	if (strcmp(u, "ns") == 0)
		return 1;
	if (strcmp(u, "us") == 0 || strcmp(u, "\xc2\xb5s") == 0 || strcmp(u, "\xce\xbcs") == 0)
		return 1e3;
	if (strcmp(u, "ms") == 0)
		return 1e6;
	if (strcmp(u, "s") == 0)
		return 1e9;
	return NAN;
}

static double display_rate_bps(const char *u)
{
	static const struct { const char *u; double f; } r[] = {
		{"B/s", 1}, {"bytes/s", 1}, {"KB/s", 1e3}, {"kB/s", 1e3},
		{"MB/s", 1e6}, {"GB/s", 1e9}, {"TB/s", 1e12} };

	for (size_t i = 0; u && i < N(r); i++)
		if (strcmp(u, r[i].u) == 0)
			return r[i].f;
	return NAN;
}

double units_display(const char *probe_unit, double typical, char *label, size_t len,
		     double *ns_per_unit)
{
	double ns = display_time_ns(probe_unit), bps = display_rate_bps(probe_unit);
	double ref = fabs(typical);
	size_t i = 0;

	if (ns_per_unit)
		*ns_per_unit = ns;
	if (!isfinite(ref) || ref == 0)
		ref = 1;
	if (isfinite(ns)) {
		static const struct { double ns; const char *l; } t[] = {
			{1, "ns"}, {1e3, "\xc2\xb5s"}, {1e6, "ms"}, {1e9, "s"} };

		while (i < 3 && ref * ns >= t[i + 1].ns)
			i++;
		snprintf(label, len, "%s", t[i].l);
		return ns / t[i].ns;
	}
	if (isfinite(bps)) {
		static const struct { double f; const char *l; } t[] = {
			{1, "B/s"}, {1e3, "KB/s"}, {1e6, "MB/s"}, {1e9, "GB/s"}, {1e12, "TB/s"} };

		while (i < 4 && ref * bps >= t[i + 1].f)
			i++;
		snprintf(label, len, "%s", t[i].l);
		return bps / t[i].f;
	}
	snprintf(label, len, "%s", probe_unit ? probe_unit : "");
	return 1;
}
