/*
 * results.c - files of a run.  Every file goes through results_write_file
 * (temp name + fsync + rename) so that a crash or Ctrl-C leaves either the
 * old file or the new one, never half of one.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results/results.h"
#include "lib/jsonutil.h"

json_t *results_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

int results_write_file(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
	char tmp[4096];
	int fd;

	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (len > 0) {
		ssize_t w = write(fd, data, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			int e = errno;
			snprintf(err, errlen, "%s: %s", path, strerror(e));
			close(fd);
			unlink(tmp);
			errno = e;
			return -1;
		}
		data += w;
		len -= (size_t)w;
	}
	int synced = fsync(fd), closed = close(fd);
	if (synced < 0 || closed < 0 || rename(tmp, path) < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

char *results_json_text(const json_t *j, const char *path, size_t *len, char *err, size_t errlen)
{
	const char *lost = jsonutil_build_failure();

	if (lost) {
		/* a value is missing from j or from what it was built from */
		snprintf(err, errlen, "%s: not written: a value could not be built (%s)", path, lost);
		return NULL;
	}
	char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	if (!s) {
		snprintf(err, errlen, "%s: cannot encode JSON", path);
		return NULL;
	}
	size_t n = strlen(s);
	char *withnl = realloc(s, n + 2);
	if (!withnl) {
		free(s);
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	withnl[n] = '\n';
	withnl[n + 1] = 0;
	*len = n + 1;
	return withnl;
}

int results_write_json(const char *path, const json_t *j, char *err, size_t errlen)
{
	size_t n;
	char *text = results_json_text(j, path, &n, err, errlen);

	if (!text)
		return -1;
	int rc = results_write_file(path, text, n, err, errlen);
	free(text);
	return rc;
}

int results_mkdirs(const char *path, char *err, size_t errlen)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = buf + 1; ; p++) {
		if (*p == '/' || *p == 0) {
			char c = *p;
			*p = 0;
			if (mkdir(buf, 0755) < 0 && errno != EEXIST) {
				snprintf(err, errlen, "%s: %s", buf, strerror(errno));
				return -1;
			}
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}

/* RFC 4180: quote a field when it has a comma, quote or newline. */
static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_num(FILE *f, const json_t *v)
{
	fputc(',', f);
	if (json_is_number(v))
		fprintf(f, "%.10g", json_number_value(v));
}

int results_write_csv(const char *run_dir, const json_t *results, char *err, size_t errlen)
{
	char *buf = NULL, path[4096];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	size_t i, k;
	const json_t *res, *pt;

	if (!f) {
		snprintf(err, errlen, "results.csv: %s", strerror(errno));
		return -1;
	}
	/* One column per parameter of any experiment (param.NAME, in order of
	   first appearance), empty where an experiment has no such parameter:
	   a spreadsheet or pandas can then filter and group by it. */
	json_t *cols = json_array();
	json_array_foreach(results, i, res) {
		json_array_foreach(json_object_get(res, "points"), k, pt) {
			const char *key;
			json_t *v, *c;
			size_t j;

			json_object_foreach(json_object_get(pt, "params_text"), key, v) {
				int have = 0;

				json_array_foreach(cols, j, c)
					have |= strcmp(json_string_value(c), key) == 0;
				if (!have)
					jsonutil_append(cols, jsonutil_text(key));
			}
		}
	}
	fputs("experiment,point,status", f);
	json_array_foreach(cols, i, pt) {
		fputc(',', f);
		char name[256];
		snprintf(name, sizeof name, "param.%s", json_string_value(pt));
		csv_field(f, name);
	}
	fputs(",estimate,ci_lo,ci_hi,ci_level,unit,n,n_outliers,mean,median,std,min,max\n", f);
	json_array_foreach(results, i, res) {
		const char *exp = json_string_value(json_object_get(res, "experiment"));
		const char *unit = json_string_value(json_object_get(json_object_get(res, "probe"), "unit"));
		json_array_foreach(json_object_get(res, "points"), k, pt) {
			json_t *c;
			size_t j;

			csv_field(f, exp ? exp : "");
			fprintf(f, ",%zu,", k);
			csv_field(f, json_string_value(json_object_get(pt, "status")) ?
					     json_string_value(json_object_get(pt, "status")) : "");
			json_array_foreach(cols, j, c) {
				const char *t = json_string_value(json_object_get(
					json_object_get(pt, "params_text"), json_string_value(c)));

				fputc(',', f);
				csv_field(f, t ? t : "");
			}
			json_t *ci = json_object_get(pt, "ci"), *st = json_object_get(pt, "stats");
			csv_num(f, json_object_get(pt, "estimate"));
			csv_num(f, json_array_get(ci, 0));
			csv_num(f, json_array_get(ci, 1));
			csv_num(f, json_object_get(pt, "ci_level"));
			fputc(',', f);
			csv_field(f, unit ? unit : "");
			csv_num(f, json_object_get(pt, "n"));
			csv_num(f, json_object_get(pt, "n_outliers"));
			csv_num(f, json_object_get(st, "mean"));
			csv_num(f, json_object_get(st, "median"));
			csv_num(f, json_object_get(st, "std"));
			csv_num(f, json_object_get(st, "min"));
			csv_num(f, json_object_get(st, "max"));
			fputc('\n', f);
		}
	}
	fclose(f);
	json_decref(cols);
	snprintf(path, sizeof path, "%s/results.csv", run_dir);
	int rc = results_write_file(path, buf, len, err, errlen);
	free(buf);
	return rc;
}

int results_link_latest(const char *out_dir, const char *run_id, char *err, size_t errlen)
{
	char tmp[4096], link[4096];
	snprintf(tmp, sizeof tmp, "%s/.latest.%ld", out_dir, (long)getpid());
	snprintf(link, sizeof link, "%s/latest", out_dir);
	unlink(tmp);
	if (symlink(run_id, tmp) < 0 || rename(tmp, link) < 0) {
		snprintf(err, errlen, "%s: %s", link, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

