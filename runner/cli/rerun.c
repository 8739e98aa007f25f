/*
 * rerun.c - `runner rerun out/<id>`: the same specs (as saved in the run
 * folder), the same --set/--quick/--filter options, the same seed, into a
 * new run folder that names its origin.  A changed probe binary is refused
 * unless --force; a changed machine is reported.  Both go in the manifest.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/loader.h"
#include "machine/machine.h"
#include "cli/rerun.h"
#include "engine/engine.h"
#include "lib/exitcode.h"
#include "results/results.h"
#include "lib/jsonutil.h"

/* Machine fields whose change makes numbers incomparable. */
void rerun_machine_changes(const json_t *old, const json_t *now, json_t *changes)
{
	static const char *keys[] = {"hostname", "cpu_model", "cpus_online", "memory_bytes",
				     "kernel", "governor", "thp", "aslr", "virtualization"};
	json_t *detected = json_object_get(old, "detected");
	json_t *given = json_object_get(json_object_get(old, "given"), "keys"), *g;
	size_t gi;

	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		/* a given fact is compared by what was detected under it, and one
		   with nothing detected under it not at all: it is given again */
		json_t *a = json_object_get(detected, keys[i]), *b = json_object_get(now, keys[i]);
		int was_given = 0;

		json_array_foreach(given, gi, g)
			was_given |= json_is_string(g) && !strcmp(json_string_value(g), keys[i]);
		if (!a && was_given)
			continue;
		if (!a)
			a = json_object_get(old, keys[i]);
		if (json_equal(a, b) || (!a && json_is_null(b)))
			continue;
		char *sa = a ? json_dumps(a, JSON_ENCODE_ANY) : strdup("absent");
		char *sb = b ? json_dumps(b, JSON_ENCODE_ANY) : strdup("absent");
		char msg[1024];
		snprintf(msg, sizeof msg, "machine: %s changed: %s -> %s", keys[i], sa, sb);
		jsonutil_append(changes, jsonutil_text(msg));
		free(sa);
		free(sb);
	}
	double ta = json_number_value(json_object_get(old, "tsc_hz"));
	double tb = json_number_value(json_object_get(now, "tsc_hz"));
	if (ta > 0 && tb > 0 && fabs(ta - tb) / ta > 0.01) {
		char msg[256];
		snprintf(msg, sizeof msg, "machine: TSC frequency changed: %.0f Hz -> %.0f Hz", ta, tb);
		jsonutil_append(changes, jsonutil_text(msg));
	}
}

/* A run folder is untrusted: its probes load only from the probe
   directories (built-in, $SYSMETER_PROBE_DIR, --probe-dir).  A probe the run
   loaded from elsewhere is refused with the option that trusts its folder;
   a saved spec naming a probe by path loads it only from those folders.
   Returns 0, or -1 (said). */
static int trust_recorded_dirs(json_t *exps)
{
	json_t *x;
	size_t i;

	loader_only_dirs(1);
	json_array_foreach(exps, i, x) {
		const char *path = json_string_value(json_object_get(json_object_get(x, "probe"),
								     "path"));
		const char *slash = path ? strrchr(path, '/') : NULL;

		if (!path || access(path, F_OK) != 0 || loader_in_dirs(path))
			continue;	/* gone: found (or not) by name, as a run would */
		fprintf(stderr, "runner: the run loaded probe %s from %.*s, which is not a probe "
			"directory here: give --probe-dir %.*s to load it from there\n", path,
			slash ? (int)(slash - path) : 0, path, slash ? (int)(slash - path) : 0, path);
		return -1;
	}
	return 0;
}

/* The saved specs' paths into files[], and each probe's binary compared
   with the one the run used: a change (or a probe that no longer loads)
   is added to `changes`.  Returns 1 when a probe changed. */
static int probe_changes(const char *run_dir, json_t *exps, char **files, json_t *changes)
{
	char err[4400], msg[1200];
	int refused = 0;
	json_t *x;
	size_t i;

	json_array_foreach(exps, i, x) {
		const char *name = json_string_value(json_object_get(x, "name"));
		json_t *pj = json_object_get(x, "probe");
		const char *pname = json_string_value(json_object_get(pj, "name"));
		const char *sha = json_string_value(json_object_get(pj, "sha256"));
		struct loaded_probe lp;
		if (asprintf(&files[i], "%s/specs/%s.yaml", run_dir, name ? name : "?") < 0)
			files[i] = NULL;
		if (!pname)
			continue;
		if (loader_open(pname, &lp, err, sizeof err) < 0) {
			if (sha) {
				snprintf(msg, sizeof msg, "probe '%s' no longer loads: %s", pname, err);
				jsonutil_append(changes, jsonutil_text(msg));
				refused = 1;
			}
			continue;
		}
		if (sha && strcmp(sha, lp.sha256) != 0) {
			snprintf(msg, sizeof msg, "probe '%s' changed: sha256 %.12s… -> %.12s…", pname, sha,
				 lp.sha256);
			jsonutil_append(changes, jsonutil_text(msg));
			refused = 1;
		}
		loader_close(&lp);
	}
	return refused;
}

int rerun_check(const char *run_dir, json_t *m, char **files, json_t *changes)
{
	json_t *exps = json_object_get(m, "experiments");

	/* Probe binaries: the same files, the same sha256, or refuse. */
	if (trust_recorded_dirs(exps) < 0)
		return -1;
	int refused = probe_changes(run_dir, exps, files, changes);
	double hz = machine_calibrate_tsc();
	json_t *now = machine_describe(hz);
	rerun_machine_changes(json_object_get(m, "machine"), now, changes);
	json_decref(now);
	return refused;
}

int rerun_replay(const json_t *m, const struct cli_opts *now, struct engine_request *rq)
{
	json_t *opts = json_object_get(m, "options"), *sets = json_object_get(opts, "set"), *x;
	char **v = calloc(json_array_size(sets) + 1, sizeof *v);
	size_t i, n = 0;

	if (!v)
		return -1;
	cli_engine_options(now, &rq->opt);
	json_array_foreach(sets, i, x)
		v[n++] = (char *)json_string_value(x);
	rq->opt.sets = v;
	rq->opt.n_sets = n;
	/* The saved specs are exactly the experiments that ran: no filter. */
	rq->opt.filters = NULL;
	rq->opt.n_filters = 0;
	rq->opt.quick = json_is_true(json_object_get(opts, "quick"));
	const char *seedtxt = json_string_value(json_object_get(m, "seed_text"));
	rq->has_seed = 1;
	rq->seed = seedtxt ? strtoull(seedtxt, NULL, 10)
			   : (uint64_t)json_integer_value(json_object_get(m, "seed"));
	if (!rq->opt.peer)
		rq->opt.peer = json_string_value(json_object_get(opts, "peer"));
	if (!rq->opt.nfs)	/* the same kind of server: a namespace is made afresh */
		rq->opt.nfs = json_string_value(json_object_get(opts, "nfs"));
	return 0;
}

/* The machine facts the run was given (--machine), as copied into its
   folder (machine.given.copy): *path, or NULL when it was given none.  0,
   or -1 (said) when the manifest names a copy that is not a plain file name
   of the folder, or the copy is gone. */
static int given_facts(const char *run_dir, const json_t *m, char **path)
{
	json_t *given = json_object_get(json_object_get(m, "machine"), "given");
	const char *copy = json_string_value(json_object_get(given, "copy"));

	*path = NULL;
	if (!copy)
		return 0;
	if (!*copy || strchr(copy, '/') || !strcmp(copy, ".") || !strcmp(copy, "..")) {
		fprintf(stderr, "runner: rerun: %s/manifest.json: machine.given.copy is not a file "
			"name of the run folder\n", run_dir);
		return -1;
	}
	if (asprintf(path, "%s/%s", run_dir, copy) < 0) {
		*path = NULL;
		return -1;
	}
	if (access(*path, F_OK) != 0) {
		fprintf(stderr, "runner: rerun: the run was given machine facts (%s), and %s is "
			"gone: give them again with --machine FILE\n",
			json_string_value(json_object_get(given, "file")) ?
			json_string_value(json_object_get(given, "file")) : "?", *path);
		free(*path);
		*path = NULL;
		return -1;
	}
	return 0;
}

int rerun_main(const char *run_dir, const struct cli_opts *now)
{
	char err[4400];
	json_t *m = results_manifest_read(run_dir, err, sizeof err);
	if (!m) {
		fprintf(stderr, "runner: rerun: %s\n", err);
		return EXIT_USAGE;
	}
	if (json_is_object(json_object_get(m, "merge"))) {
		/* each experiment came from another run, with its own seed */
		fprintf(stderr, "runner: rerun: %s is a merged report (runner merge): rerun the runs it "
			"was merged from (manifest.json: merge.runs) and merge those\n", run_dir);
		json_decref(m);
		return EXIT_USAGE;
	}
	json_t *exps = json_object_get(m, "experiments"), *x;
	json_t *changes = json_array();
	size_t i, n = json_array_size(exps);
	char **files = calloc(n + 1, sizeof *files);
	struct engine_request rq = {.paths = files, .n_paths = n};
	char *facts = NULL;
	int rc;

	int refused = rerun_check(run_dir, m, files, changes);
	if (refused < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	json_array_foreach(changes, i, x)
		fprintf(stderr, "runner: rerun: %s\n", json_string_value(x));
	if (refused && !now->force) {
		fprintf(stderr, "runner: rerun: a probe changed since %s; use --force to rerun anyway\n",
			run_dir);
		rc = EXIT_USAGE;
		goto out;
	}
	if (rerun_replay(m, now, &rq) < 0) {
		rc = EXIT_INTERNAL;
		goto out;
	}
	if (!rq.opt.machine_file && given_facts(run_dir, m, &facts) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (facts) {	/* the folder's copy: a symbolic link there is not followed */
		rq.opt.machine_file = facts;
		rq.opt.machine_file_copy = 1;
	}
	json_t *origin = json_pack("{s:s,s:O,s:O}", "run", run_dir, "run_id",
				   json_object_get(m, "run_id"), "changes", changes);
	rq.origin = origin;
	rc = engine_run(&rq);
	json_decref(origin);
out:
	free((void *)rq.opt.sets);	/* rerun_replay's, also when a later check refused */
	free(facts);
	for (i = 0; i < n; i++)
		free(files[i]);
	free(files);
	json_decref(changes);
	json_decref(m);
	return rc;
}
