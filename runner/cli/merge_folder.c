/*
 * merge_folder.c - the new run folder of a merge (merge_folder.h).
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/merge_folder.h"
#include "lib/exitcode.h"
#include "lib/jsonutil.h"
#include "lib/version.h"
#include "report/report.h"
#include "results/results.h"

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	return remove(p);
}

void merge_folder_discard(const char *tmp)
{
	nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int merge_folder_begin(const char *out_dir, const char *id, char *tmp, size_t tmplen, char *final,
		       size_t finallen)
{
	char err[4400];

	snprintf(final, finallen, "%s/%s", out_dir, id);
	if (access(final, F_OK) == 0) {
		fprintf(stderr, "runner: merge: %s: run folder already exists\n", final);
		return EXIT_USAGE;
	}
	if (results_mkdirs(out_dir, err, sizeof err) < 0) {
		fprintf(stderr, "runner: merge: %s\n", err);
		return EXIT_INTERNAL;
	}
	snprintf(tmp, tmplen, "%s/.merge-XXXXXX", out_dir);
	if (!mkdtemp(tmp)) {
		fprintf(stderr, "runner: merge: %s: %s\n", tmp, strerror(errno));
		return EXIT_INTERNAL;
	}
	chmod(tmp, 0755);
	return EXIT_OK;
}

int merge_folder_finish(const char *tmp, const char *final, const char *out_dir, const char *id,
			const struct cli_opts *o)
{
	char err[8600];

	if (!o->no_report &&
	    report_render(tmp, o->templates ? o->templates : report_default_templates(), REPORT_ALL,
			  o->verbose, err, sizeof err) < 0) {
		fprintf(stderr, "runner: merge: report: %s\n", err);
		merge_folder_discard(tmp);
		return EXIT_INTERNAL;
	}
	if (rename(tmp, final) < 0) {
		fprintf(stderr, "runner: merge: %s: %s\n", final, strerror(errno));
		merge_folder_discard(tmp);
		return EXIT_INTERNAL;
	}
	if (results_link_latest(out_dir, id, err, sizeof err) < 0) {
		fprintf(stderr, "runner: merge: %s\n", err);
		return EXIT_INTERNAL;
	}
	return EXIT_OK;
}

void merge_folder_manifest_head(json_t *m, const char *id, const struct cli_opts *o, char *now,
				size_t nowlen)
{
	json_t *argv = json_array();
	char cwd[4096] = "", *commit = version_git_commit();

	for (int i = 0; i < o->argc; i++)
		jsonutil_append(argv, jsonutil_text(o->argv[i]));
	results_iso_now(now, nowlen);
	if (!getcwd(cwd, sizeof cwd))
		cwd[0] = 0;
	jsonutil_set(m, "schema", jsonutil_text("sysmeter.manifest/1"));
	jsonutil_set(m, "run_id", jsonutil_text(id));
	jsonutil_set(m, "runner", json_pack("{s:s,s:o}", "version", SYSMETER_VERSION,
		"git_commit", commit ? jsonutil_text(commit) : json_null()));
	free(commit);
	jsonutil_set(m, "command_line", argv);
	jsonutil_set(m, "cwd", jsonutil_text(cwd));
}
