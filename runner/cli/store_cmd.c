/*
 * store_cmd.c - the commands of the results store (docs/cli.md, "runner
 * store"): import backfills run folders (recording a run again replaces
 * its rows, so importing twice adds nothing), check verifies the store
 * against the folders its runs point to.
 */
#include "cli/options.h"
#include "cli/store_cmd.h"
#include "lib/exitcode.h"
#include "lib/text.h"
#include "results/results.h"
#include "store/store.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The store of a run folder: --store, else sysmeter.db in the folder's
   parent (beside the run folders, where the run itself recorded it);
   opened to write (import) or to read only (compare's baseline). */
static struct store *open_for_run(const char *run, const struct cli_opts *o, int write,
				  char *err, size_t errlen)
{
	char abs[PATH_MAX], *slash;

	if (o->store)
		return write ? store_open(o->store, NULL, err, errlen)
			     : store_open_read(o->store, NULL, STORE_MISSING_REFUSED, err, errlen);
	if (!realpath(run, abs)) {
		snprintf(err, errlen, "%s: %s", run, strerror(errno));
		return NULL;
	}
	slash = strrchr(abs, '/');
	if (slash == abs)
		slash[1] = 0;
	else if (slash)
		*slash = 0;
	return write ? store_open(NULL, abs, err, errlen)
		     : store_open_read(NULL, abs, STORE_MISSING_REFUSED, err, errlen);
}

static int import(char **runs, size_t n, const struct cli_opts *o)
{
	int rc = EXIT_OK;

	for (size_t i = 0; i < n; i++) {
		char err[4096];
		struct store *s;
		json_t *m = results_manifest_read(runs[i], err, sizeof err);
		int pts;

		if (!m) {
			fprintf(stderr, "runner: store import: %s\n", err);
			rc = EXIT_USAGE;
			continue;
		}
		json_decref(m);
		if (!(s = open_for_run(runs[i], o, 1, err, sizeof err))) {
			fprintf(stderr, "runner: store import: %s\n", err);
			if (rc == EXIT_OK)
				rc = EXIT_FAILED;
			continue;
		}
		pts = store_record(s, runs[i], err, sizeof err);
		if (pts < 0) {
			fprintf(stderr, "runner: store import: %s\n", err);
			if (rc == EXIT_OK)
				rc = EXIT_FAILED;
		} else if (!o->quiet) {
			printf("%s: %d point%s in %s\n", runs[i], pts, pts == 1 ? "" : "s",
			       store_where(s));
		}
		store_close(s);
	}
	return rc;
}

/* "STORE: N runs checked, M differ from their folders[; K run folders
   under DIR not in the store][; the store is damaged]" */
static void check_summary(struct store *s, const char *runs_dir,
			  const struct store_check_count *c)
{
	char dir[4 * PATH_MAX + 1];

	printf("%s: %zu run%s checked, %zu differ%s from %s folder%s", store_where(s), c->runs,
	       c->runs == 1 ? "" : "s", c->differ, c->differ == 1 ? "s" : "",
	       c->differ == 1 ? "its" : "their", c->differ == 1 ? "" : "s");
	if (runs_dir) {
		text_escape(runs_dir, dir, sizeof dir);
		printf("; %zu run folder%s under %s not in the store", c->missing,
		       c->missing == 1 ? "" : "s", dir);
	}
	printf("%s\n", c->damaged ? "; the store is damaged" : "");
}

static int check(const struct cli_opts *o)
{
	char err[4096];
	struct store *s;
	struct store_check_count cnt;
	int bad;

	/* read only: a store that is not there is said, never made */
	if (!(s = store_open_read(o->store, o->out_dir, STORE_MISSING_REFUSED, err, sizeof err))) {
		fprintf(stderr, "runner: store check: %s\n", err);
		return EXIT_USAGE;
	}
	/* the run folders that must all be in the store: -o DIR's; without
	   -o, out's when the store is its own (out/sysmeter.db), none when
	   --store names one (a shared store holds more than this folder) */
	const char *runs_dir = cli_out_given(o) || !o->store ? o->out_dir : NULL;
	bad = store_check(s, runs_dir, o->store ? store_where(s) : NULL, stdout, &cnt, err,
			  sizeof err);
	if (bad < 0)
		fprintf(stderr, "runner: store check: %s\n", err);
	else if (!o->quiet)
		check_summary(s, runs_dir, &cnt);
	store_close(s);
	return bad < 0 ? EXIT_USAGE : bad ? EXIT_FAILED : EXIT_OK;
}

int store_cmd_main(char **ops, size_t nops, const struct cli_opts *o)
{
	if (nops >= 1 && strcmp(ops[0], "import") == 0) {
		if (nops < 2) {
			fprintf(stderr, "runner: store import: no run folder given\n");
			return EXIT_USAGE;
		}
		return import(ops + 1, nops - 1, o);
	}
	if (nops >= 1 && strcmp(ops[0], "check") == 0) {
		if (nops > 1) {
			fprintf(stderr, "runner: store check: no operand expected ('%s'); --store "
				"names the store\n", ops[1]);
			return EXIT_USAGE;
		}
		return check(o);
	}
	fprintf(stderr, "runner: store: expected 'import RUN...' or 'check'%s%s%s\n",
		nops ? ", not '" : "", nops ? ops[0] : "", nops ? "'" : "");
	return EXIT_USAGE;
}

char *store_cmd_baseline(const char *run, const struct cli_opts *o, int *rc)
{
	char err[4096], *dir = NULL, *id = NULL;
	json_t *m = results_manifest_read(run, err, sizeof err);
	struct store *s;
	const char *run_id;
	int found;

	*rc = EXIT_USAGE;
	if (!m) {
		fprintf(stderr, "runner: compare: %s\n", err);
		return NULL;
	}
	run_id = json_string_value(json_object_get(m, "run_id"));
	if (!run_id || !(s = open_for_run(run, o, 0, err, sizeof err))) {
		fprintf(stderr, "runner: compare: %s\n", run_id ? err : "the manifest has no run_id");
		json_decref(m);
		return NULL;
	}
	found = store_baseline(s, run_id, &dir, &id, err, sizeof err);
	if (found < 0)
		fprintf(stderr, "runner: compare: %s\n", err);
	else if (!found)
		fprintf(stderr, "runner: compare: %s: no earlier run of its experiments on this "
			"machine in %s (is %s recorded? runner store import %s)\n", run,
			store_where(s), run_id, run);
	else
		fprintf(stderr, "runner: compare: baseline %s (%s), from %s\n", id, dir,
			store_where(s));
	store_close(s);
	json_decref(m);
	free(id);
	return found > 0 ? dir : (free(dir), NULL);
}
