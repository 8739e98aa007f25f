/*
 * report_view.c - the view model's values: strings, numbers, sizes, dates
 * and any machine value as text (report_view.h).
 */
#include "report/report_view.h"
#include "lib/strf.h"
#include "lib/units.h"
#include "lib/jsonutil.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

json_t *report_view_str(const char *s)
{
	json_t *v = jsonutil_text(s ? s : "");

	return v ? v : jsonutil_text("?");
}

json_t *report_view_strf(const char *fmt, ...)
{
	char *s = NULL;
	json_t *v;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	v = report_view_str(s ? s : "?");
	free(s);
	return v;
}

void report_view_put(json_t *o, const char *key, json_t *v)
{
	jsonutil_set(o, key, v ? v : json_null());
}

static char *one_line(const char *s)
{
	char *out = strdup(s ? s : ""), *p;

	if (!out)
		return NULL;
	for (p = out; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	return out;
}

json_t *report_view_line(const char *s)
{
	char *l = one_line(s);
	json_t *v = report_view_str(l ? l : "?");

	free(l);
	return v;
}

/* Byte offset of character k of s (UTF-8; a stray continuation byte counts
   with the character before it). */
static size_t char_offset(const char *s, size_t k)
{
	size_t i = 0;

	while (s[i] && k) {
		i++;
		while (((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
		k--;
	}
	return i;
}

json_t *report_view_cell(const char *s)
{
	char *l = one_line(s);
	size_t n = 0, head = REPORT_VIEW_CELL_CHARS * 2 / 3, tail;
	json_t *v;

	if (!l)
		return report_view_str("?");
	for (const char *p = l; *p; p++)
		n += ((unsigned char)*p & 0xc0) != 0x80;
	if (n <= REPORT_VIEW_CELL_CHARS) {
		v = report_view_str(l);
	} else {
		/* the tail names the file of a path, the end of a command */
		tail = REPORT_VIEW_CELL_CHARS - 1 - head;
		v = report_view_strf("%.*s\xe2\x80\xa6%s", (int)char_offset(l, head), l,
				     l + char_offset(l, n - tail));
	}
	free(l);
	return v;
}

/* ------------------------------------------------------- numbers and sizes */

json_t *report_view_num(double v)
{
	char buf[64];

	if (!isfinite(v))
		return report_view_str(REPORT_VIEW_DASH);
	units_format_number(v, buf, sizeof buf);
	return report_view_str(buf);
}

json_t *report_view_num_unit(double v, const char *unit)
{
	char buf[64];

	if (!isfinite(v))
		return report_view_str(REPORT_VIEW_DASH);
	units_format_number(v, buf, sizeof buf);
	return report_view_strf("%s %s", buf, unit);
}

json_t *report_view_ci(double lo, double hi)
{
	char a[64], b[64];

	if (!isfinite(lo) || !isfinite(hi))
		return report_view_str(REPORT_VIEW_DASH);
	units_format_number(lo, a, sizeof a);
	units_format_number(hi, b, sizeof b);
	return report_view_strf("[%s, %s]", a, b);
}

/* The chart's compact "32KiB" with a space before the unit. */
void report_view_size_text(double bytes, char *buf, size_t len)
{
	char compact[64];
	size_t i = 0;

	units_format_size_short(bytes, compact, sizeof compact);
	while (compact[i] == '.' || compact[i] == '-' || (compact[i] >= '0' && compact[i] <= '9'))
		i++;
	if (i > 0 && compact[i])
		strf(buf, len, "%.*s %s", (int)i, compact, compact + i);
	else
		strf(buf, len, "%s", compact);
}

json_t *report_view_size(double bytes)
{
	char buf[64];

	if (!isfinite(bytes))
		return report_view_str(REPORT_VIEW_DASH);
	report_view_size_text(bytes, buf, sizeof buf);
	return report_view_str(buf);
}

/* --------------------------------------------------------- machine values */

void report_view_any_text(FILE *f, json_t *v)
{
	size_t i;
	const char *k;
	json_t *e;

	if (!v || json_is_null(v))
		fputs("n/a", f);
	else if (json_is_string(v))
		fputs(json_string_length(v) ? json_string_value(v) : "n/a", f);
	else if (json_is_boolean(v))
		fputs(json_is_true(v) ? "yes" : "no", f);
	else if (json_is_integer(v))
		fprintf(f, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		fprintf(f, "%.4g", json_real_value(v));
	else if (json_is_array(v)) {
		json_array_foreach(v, i, e) {
			if (i)
				fputs("; ", f);
			report_view_any_text(f, e);
		}
		if (json_array_size(v) == 0)
			fputs("n/a", f);
	} else if (json_is_object(v)) {
		/* disk and nic may be objects: "key: value, ..." without nulls */
		i = 0;
		json_object_foreach(v, k, e) {
			if (json_is_null(e))
				continue;
			fprintf(f, "%s%s: ", i++ ? ", " : "", k);
			report_view_any_text(f, e);
		}
		if (i == 0)
			fputs("n/a", f);
	}
}

json_t *report_view_any(json_t *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *out;

	if (!f)
		return report_view_str("?");
	report_view_any_text(f, v);
	fclose(f);
	out = report_view_line(buf);
	free(buf);
	return out;
}

/* ------------------------------------------------------------------ dates */

json_t *report_view_date(const char *iso)
{
	char buf[64];

	if (!iso)
		return report_view_str("n/a");
	if (strlen(iso) >= 19 && iso[10] == 'T') {
		strf(buf, sizeof buf, "%.10s %.8s UTC", iso, iso + 11);
		return report_view_str(buf);
	}
	return report_view_str(iso);
}

static int parse_utc(const char *iso, time_t *t)
{
	struct tm tm;

	memset(&tm, 0, sizeof tm);
	if (!iso || !strptime(iso, "%Y-%m-%dT%H:%M:%S", &tm))
		return -1;
	*t = timegm(&tm);
	return 0;
}

json_t *report_view_duration(const char *from, const char *to)
{
	time_t a, b;
	long s;

	if (parse_utc(from, &a) < 0 || parse_utc(to, &b) < 0 || b < a)
		return report_view_str("n/a");
	s = (long)(b - a);
	if (s >= 3600)
		return report_view_strf("%ld h %ld min %ld s", s / 3600, s / 60 % 60, s % 60);
	if (s >= 60)
		return report_view_strf("%ld min %ld s", s / 60, s % 60);
	return report_view_strf("%ld s", s);
}

/* ------------------------------------------------------------------ names */

void report_view_safe_name(const char *s, char *out, size_t len)
{
	size_t i;

	for (i = 0; s && s[i] && i + 1 < len; i++) {
		char c = s[i];

		out[i] = (c == '_' || c == '-' || (c >= 'a' && c <= 'z') ||
			  (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) ? c : '_';
	}
	out[i] = '\0';
	if (i == 0)
		strf(out, len, "experiment");
}
