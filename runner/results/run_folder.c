/*
 * run_folder.c - a run folder read back is untrusted input (results.h:
 * results_manifest_read, results_load).
 *
 * report, rerun, resume, merge and compare all start from a folder that
 * anyone may have edited: a manifest whose `options.set` holds a number
 * crashed rerun, one naming /tmp/evil.so as a probe made rerun load it, and
 * an experiment called ../../x made report read files outside the folder.
 * So every field those commands use is checked here, once, before any of
 * them looks at it: types, names that are names (no path components), the
 * result file each experiment points at, and the size of what is read.
 */
#include "results/results.h"
#include "lib/text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A results file of 100,000 points is ~100 MB; nothing larger is a run's. */
#define RESULTS_MAX_BYTES (1024L * 1024 * 1024)

/* Letters, digits, '_' and '-' (what a spec's `name:` accepts). */
static int is_name(const char *s)
{
	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '-'))
			return 0;
	return 1;
}

/* A plain folder name: printable, no '/', not "." or "..". */
static int is_folder_name(const char *s)
{
	return s && *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..") &&
	       text_printable_utf8(s);
}

json_t *results_load(const char *path, char *err, size_t errlen)
{
	json_error_t je;
	struct stat st;
	/* O_NOFOLLOW: a symbolic link planted in a folder is not read through
	   (the folder's own path may still be one: out/latest) */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(err, errlen, "%s: %s", path,
			 errno == ELOOP ? "a symbolic link (not followed)" : strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > RESULTS_MAX_BYTES) {
		snprintf(err, errlen, "%s: %s", path,
			 S_ISREG(st.st_mode) ? "larger than any run's file" : "not a regular file");
		close(fd);
		return NULL;
	}
	/* through stdio: jansson's json_loadfd reads one byte per read(2) */
	FILE *f = fdopen(fd, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	json_t *j = json_loadf(f, 0, &je);
	fclose(f);
	if (!j) {
		/* jansson quotes the bytes it stopped at: show control characters
		   and invalid UTF-8 as \xNN, never raw on a terminal */
		char shown[sizeof je.text * 4];

		text_escape(je.text, shown, sizeof shown);
		snprintf(err, errlen, "%s: %s", path, shown);
	}
	return j;
}

/* Is member key of o absent, or of the wanted kind? */
static int opt_str(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	return !v || json_is_string(v) || json_is_null(v);
}

static int str_array(const json_t *v)
{
	size_t i;
	json_t *e;

	if (!v || json_is_null(v))
		return 1;
	if (!json_is_array(v))
		return 0;
	json_array_foreach(v, i, e)
		if (!json_is_string(e))
			return 0;
	return 1;
}

#define BAD(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

int results_manifest_check(const json_t *m, char *err, size_t errlen)
{
	const json_t *opts, *exps, *x, *v;
	const char *s;
	size_t i;

	if (!json_is_object(m))
		BAD("not a JSON object");
	s = json_string_value(json_object_get(m, "schema"));
	if (!s || strncmp(s, "sysmeter.manifest/", 18) != 0)
		BAD("not a sysmeter.manifest/1 file (schema)");
	v = json_object_get(m, "run_id");
	if (v && !json_is_null(v) && !is_folder_name(json_string_value(v)))
		BAD("run_id: expected a plain folder name");
	v = json_object_get(m, "seed");
	if (v && !json_is_null(v) && !json_is_integer(v))
		BAD("seed: expected an integer");
	if (!opt_str(m, "status"))
		BAD("status: expected a string");
	opts = json_object_get(m, "options");
	if (opts && !json_is_null(opts)) {
		if (!json_is_object(opts))
			BAD("options: expected an object");
		if (!str_array(json_object_get(opts, "set")) || !str_array(json_object_get(opts, "filter")))
			BAD("options.set and options.filter: expected lists of strings");
		v = json_object_get(opts, "quick");
		if (v && !json_is_boolean(v))
			BAD("options.quick: expected true or false");
		if (!opt_str(opts, "probe_dir") || !opt_str(opts, "peer") || !opt_str(opts, "nfs"))
			BAD("options.probe_dir, peer and nfs: expected strings");
	}
	exps = json_object_get(m, "experiments");
	if (!json_is_array(exps))
		BAD("experiments: expected a list");
	json_array_foreach(exps, i, x) {
		char want[300];
		const char *name = json_string_value(json_object_get(x, "name"));
		const json_t *probe = json_object_get(x, "probe");

		if (!json_is_object(x))
			BAD("experiments[%zu]: expected an object", i);
		if (!is_name(name) || strlen(name) > 200)
			BAD("experiments[%zu].name: expected a name of letters, digits, '_' or '-'", i);
		/* the only file an experiment may name is its own results file */
		snprintf(want, sizeof want, "results/%s.json", name);
		v = json_object_get(x, "result");
		if (v && !json_is_null(v) && (!json_is_string(v) || strcmp(json_string_value(v), want)))
			BAD("experiments[%zu].result: expected \"%s\"", i, want);
		if (!opt_str(x, "status") || !opt_str(x, "spec_text") || !opt_str(x, "title"))
			BAD("experiments[%zu]: status, spec_text and title are strings", i);
		if (probe && !json_is_null(probe)) {
			if (!json_is_object(probe) || !opt_str(probe, "path") || !opt_str(probe, "sha256"))
				BAD("experiments[%zu].probe: expected {name, path, sha256, ...}", i);
			v = json_object_get(probe, "name");
			if (v && !json_is_null(v) && !is_name(json_string_value(v)))
				BAD("experiments[%zu].probe.name: expected a probe name, not a path", i);
		}
	}
	return 0;
}

json_t *results_manifest_read(const char *run_dir, char *err, size_t errlen)
{
	char path[4200], why[512];
	json_t *m;

	snprintf(path, sizeof path, "%s/manifest.json", run_dir);
	if (!(m = results_load(path, err, errlen)))
		return NULL;
	if (results_manifest_check(m, why, sizeof why) < 0) {
		snprintf(err, errlen, "%s: %s", path, why);
		json_decref(m);
		return NULL;
	}
	return m;
}
