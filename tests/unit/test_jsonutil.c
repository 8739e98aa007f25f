/*
 * test_jsonutil.c - building JSON never loses a value in silence: a value
 * jansson cannot build (text that is not UTF-8) is recorded by
 * jsonutil_set/jsonutil_append, and results_write_json then refuses to
 * write, leaving no file (issue 15: a spec whose name was not UTF-8 used
 * to vanish from the results, exit 0).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "lib/jsonutil.h"
#include "results/results.h"

int main(void)
{
	char dir[] = "/tmp/sysmeter-test-jsonutil.XXXXXX", path[64], err[512];
	json_t *o = json_object(), *a = json_array();

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof path, "%s/r.json", dir);

	/* what is fine stays fine */
	ok(jsonutil_set(o, "name", json_string("syscall")) == 0, "a UTF-8 value is set");
	ok(jsonutil_append(a, json_integer(1)) == 0, "an integer is appended");
	ok(jsonutil_set(o, "list", a) == 0, "an array is set");
	ok(jsonutil_build_failure() == NULL, "no failure recorded yet");
	ok(results_write_json(path, o, err, sizeof err) == 0, "the object is written: %s", err);
	ok(unlink(path) == 0, "and its file exists");

	/* a text that is not UTF-8 (a program's output, a message cut inside
	   a character) is kept escaped, not lost */
	json_t *t = jsonutil_text("cut \xc2");
	ok(t && strcmp(json_string_value(t), "cut \\xc2") == 0, "jsonutil_text escapes: %s",
	   t ? json_string_value(t) : "(NULL)");
	ok(jsonutil_set(o, "reason", t) == 0 && jsonutil_build_failure() == NULL,
	   "and it is set without a failure");
	t = jsonutil_text("two\nlines µs");
	ok(t && strcmp(json_string_value(t), "two\nlines µs") == 0, "valid text is unchanged");
	json_decref(t);

	/* a name that is not UTF-8: json_string gives NULL */
	ok(jsonutil_set(o, "experiment", json_string("bad\xff")) < 0, "a NULL value is refused");
	ok(json_object_get(o, "experiment") == NULL, "nothing set");
	const char *f = jsonutil_build_failure();
	ok(f && strstr(f, "experiment") && strstr(f, "not UTF-8"), "the failure names the key: %s",
	   f ? f : "(none)");

	/* the first failure is kept; an array's NULL element too */
	ok(jsonutil_append(a, NULL) < 0, "a NULL element is refused");
	ok(json_array_size(a) == 1, "the array keeps its one element");
	ok(jsonutil_set(NULL, "x", json_integer(2)) < 0, "a NULL container is refused (value freed)");
	f = jsonutil_build_failure();
	ok(f && strstr(f, "experiment"), "still the first failure: %s", f ? f : "(none)");

	/* and nothing is written while a value is missing */
	err[0] = 0;
	ok(results_write_json(path, o, err, sizeof err) < 0, "the write is refused");
	ok(strstr(err, "r.json") && strstr(err, "could not be built") && strstr(err, "experiment"),
	   "the error names the file and the key: %s", err);
	ok(access(path, F_OK) < 0, "no file left");

	json_decref(o);
	rmdir(dir);
	return done_testing();
}
