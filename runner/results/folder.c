/*
 * folder.c - a new run folder (results.h): its id, the folder claimed with
 * the specs as given, and the manifest and result files written into it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "results/results.h"
#include "spec/spec.h"

void results_run_id(char *buf, size_t len, const char *tag, uint64_t salt)
{
	time_t t = time(NULL);
	struct tm tm;
	size_t n;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y%m%dT%H%M%SZ", &tm);
	n = strlen(buf);
	snprintf(buf + n, len - n, "-%s%06llx", tag, (unsigned long long)(salt & 0xffffff));
}

int results_folder_create(const char *out_dir, const char *run_id,
			  const struct spec *const *specs, size_t n, char *dir, size_t dirlen,
			  char *err, size_t errlen)
{
	char sub[4400];

	snprintf(dir, dirlen, "%s/%s", out_dir, run_id);
	if (results_mkdirs(out_dir, err, errlen) < 0)
		return -EIO;
	/* mkdir claims the folder atomically: a test-then-create let two
	   runners with the same --run-id both in */
	if (mkdir(dir, 0755) < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", dir,
			 e == EEXIST ? "run folder already exists" : strerror(e));
		return -e;
	}
	snprintf(sub, sizeof sub, "%s/results", dir);
	if (results_mkdirs(sub, err, errlen) < 0)
		return -EIO;
	snprintf(sub, sizeof sub, "%s/specs", dir);
	if (results_mkdirs(sub, err, errlen) < 0)
		return -EIO;
	for (size_t i = 0; i < n; i++) {
		snprintf(sub, sizeof sub, "%s/specs/%s.yaml", dir, specs[i]->name);
		if (results_write_file(sub, specs[i]->text, strlen(specs[i]->text), err, errlen) < 0)
			return -EIO;
	}
	return 0;
}

int results_write_manifest(const char *dir, const json_t *m, char *err, size_t errlen)
{
	char path[4400];

	snprintf(path, sizeof path, "%s/manifest.json", dir);
	return results_write_json(path, m, err, errlen);
}

int results_write_experiment(const char *dir, const char *name, const json_t *result,
			     char *err, size_t errlen)
{
	char path[4400];

	snprintf(path, sizeof path, "%s/results/%s.json", dir, name);
	return results_write_json(path, result, err, errlen);
}
