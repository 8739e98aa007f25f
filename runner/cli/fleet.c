/*
 * fleet.c - `runner fleet --ansible INVENTORY | --slurm ... SPEC...`: the
 * same specs, options and seed on many hosts, gathered into one
 * `merge --hosts` folder OUT/<fleet-id>/ (each host's run under hosts/).
 *
 * The runner stays a one-host tool: an existing engine does the fan-out.
 * With --ansible, ansible-playbook runs the shipped playbook
 * (tools/fleet/fleet.yml, installed as share/sysmeter/fleet/) with an
 * extra-vars file written here: it copies one archive of this build (the
 * runner, every probe folder of the search path, the specs) to each host,
 * checks the runner's sha256 and version there, runs it under timeout(1)
 * and fetches the run folder.  With --slurm (fleet_slurm.c), sbatch runs one
 * task per node that writes its run into the shared folder.  Either way each
 * host ends with a status here: its run, or missing with the reason; none is
 * dropped in silence (exit 1 when one is missing).
 *
 * No user string reaches a shell or Jinja2: host names come from
 * ansible-inventory and are checked before use, paths and options go to
 * the playbook as extra-vars marked !unsafe (fleet_vars.c: never
 * templated) and to the hosts as the command module's argv.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <glob.h>

#include "cli/fleet.h"
#include "cli/fleet_run.h"
#include "cli/fleet_vars.h"
#include "cli/merge_hosts.h"
#include "exec/loader.h"
#include "lib/exitcode.h"
#include "lib/text.h"
#include "lib/jsonutil.h"
#include "lib/monotonic.h"
#include "lib/supervise.h"
#include "lib/version.h"
#include "results/results.h"

int fleet_opt_nodes(struct cli_opts *o, const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || v < 1 || v > 100000) {
		fprintf(stderr, "runner: --nodes '%s': expected a number of nodes (1 or more)\n", arg);
		return EXIT_USAGE;
	}
	o->slurm_nodes = (int)v;
	return 0;
}

int fleet_opt_time_limit(struct cli_opts *o, const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || *end || !(v >= 1) || v > 7 * 86400) {
		fprintf(stderr, "runner: --time-limit '%s': expected seconds, 1 to 604800\n", arg);
		return EXIT_USAGE;
	}
	o->time_limit = floor(v);
	return 0;
}

/* -------------------------------------------------------- ansible */

/* The inventory's hosts (ansible-inventory --list), each checked to be a
   safe folder name; NULL when the inventory cannot be read or a name is
   refused (said). */
static json_t *inventory_hosts(const char *stage, const char *inventory)
{
	char out[PATH_MAX];
	char *argv[] = {"ansible-inventory", "-i", (char *)inventory, "--list", NULL};
	json_t *inv, *names = json_array(), *g, *h;
	json_error_t je;
	const char *key;
	size_t i;
	int how, rc;

	snprintf(out, sizeof out, "%s/inventory.json", stage);
	rc = fleet_run_tool(argv, out, 0, 300, &how);
	if (rc != 0) {
		fprintf(stderr, "runner: fleet: %s: ansible-inventory %s\n", inventory,
			rc == 127 ? "not found: install ansible (make deps)" : "could not read the inventory");
		json_decref(names);
		return NULL;
	}
	if (!(inv = json_load_file(out, 0, &je))) {
		fprintf(stderr, "runner: fleet: %s: ansible-inventory gave no JSON: %s\n", inventory, je.text);
		json_decref(names);
		return NULL;
	}
	json_object_foreach(inv, key, g)
		json_array_foreach(json_object_get(g, "hosts"), i, h) {
			size_t j;
			json_t *y;
			int seen = 0;

			if (!text_host_name_ok(json_string_value(h))) {
				char *shown = fleet_shown(json_string_value(h));

				fprintf(stderr, "runner: fleet: %s: host '%s': a host name is letters, digits, "
					"'.', '_' and '-' (it names the host's folder)\n", inventory,
					shown ? shown : "?");
				free(shown);
				json_decref(inv);
				json_decref(names);
				return NULL;
			}
			json_array_foreach(names, j, y)
				seen |= json_equal(y, h);
			if (!seen)
				json_array_append(names, h);
		}
	json_decref(inv);
	if (json_array_size(names) == 0) {
		fprintf(stderr, "runner: fleet: %s: the inventory has no hosts\n", inventory);
		json_decref(names);
		return NULL;
	}
	return names;
}

static int fleet_ansible(char **specs, size_t n, struct cli_opts *o, const char *stage,
			 const char *fleet_id)
{
	char playbook[PATH_MAX], stop[PATH_MAX], vars_path[PATH_MAX], build[PATH_MAX],
	     err[1024], exe[PATH_MAX], sha[65], limit[32], forks[32], tokens[PATH_MAX] = "",
	     *version = NULL;
	json_t *names = NULL, *argv = json_array(), *vars = NULL, *hosts = json_array(),
	       *runs = json_array();
	int rc = EXIT_INTERNAL, how, prc;
	ssize_t len;

	if (fleet_find_file("tools/fleet/fleet.yml", "fleet/fleet.yml", playbook, sizeof playbook) < 0 ||
	    fleet_find_file("tools/fleet/stop.yml", "fleet/stop.yml", stop, sizeof stop) < 0) {
		fprintf(stderr, "runner: fleet: the playbook (tools/fleet/fleet.yml beside the build, "
			"share/sysmeter/fleet/fleet.yml installed) is not there\n");
		goto out;
	}
	if (!(names = inventory_hosts(stage, o->ansible))) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (o->pairs && json_array_size(names) < 2) {
		fprintf(stderr, "runner: fleet: --pairs: %s has %zu host; each host's network peer is "
			"another host of the fleet, so --pairs needs two or more\n", o->ansible,
			json_array_size(names));
		rc = EXIT_USAGE;
		goto out;
	}
	if (fleet_make_build(stage, specs, n, o, argv, err, sizeof err) < 0) {
		fprintf(stderr, "runner: fleet: %s\n", err);
		rc = errno == ENOENT ? EXIT_USAGE : EXIT_INTERNAL;
		goto out;
	}
	snprintf(build, sizeof build, "%s/build.tgz", stage);
	{
		char bdir[PATH_MAX];
		char *targv[] = {"tar", "-C", bdir, "-czf", build, ".", NULL};

		snprintf(bdir, sizeof bdir, "%s/build", stage);
		if (fleet_run_tool(targv, NULL, 0, 600, &how) != 0) {
			fprintf(stderr, "runner: fleet: could not pack the build (tar)\n");
			goto out;
		}
	}
	if ((len = readlink("/proc/self/exe", exe, sizeof exe - 1)) <= 0 ||
	    (exe[len] = '\0', loader_sha256_file(exe, sha) < 0)) {
		fprintf(stderr, "runner: fleet: cannot read the runner's own file\n");
		goto out;
	}
	if (asprintf(&version, "runner (sysmeter) %s", SYSMETER_VERSION) < 0)
		goto out;
	if (o->pairs && fleet_pairs_tokens(stage, names, tokens, sizeof tokens, err, sizeof err) < 0) {
		fprintf(stderr, "runner: fleet: --pairs: %s\n", err);
		goto out;
	}
	/* the tokens' folder, never a token: the variables are Ansible's to show */
	vars = json_pack("{s:s,s:s,s:s,s:s,s:s,s:O,s:I,s:b,s:s}", "fleet_id", fleet_id,
			 "fleet_stage", stage, "fleet_build", build, "fleet_runner_sha256", sha,
			 "fleet_version", version, "fleet_argv", argv,
			 "fleet_time_limit", (json_int_t)o->time_limit, "fleet_pairs", o->pairs,
			 "fleet_tokens", tokens);
	/* YAML with every string !unsafe: Ansible templates the strings of
	   extra-vars, and a value of ours (a --set, a spec's name, the fleet
	   id, the stage's path) holding "{{" would run on this machine */
	snprintf(vars_path, sizeof vars_path, "%s/vars.yml", stage);
	if (!vars || fleet_vars_write(vars_path, vars, err, sizeof err) < 0) {
		fprintf(stderr, "runner: fleet: %s\n", vars ? err : "out of memory");
		goto out;
	}
	{
		char at_vars[PATH_MAX + 2];
		/* one fork per host: every host's run (and, with --pairs, every
		   serve) at once, as the time limits assume */
		char *pargv[] = {"ansible-playbook", "-i", (char *)o->ansible, "-f", forks, "-e", at_vars,
				 playbook, NULL};

		snprintf(at_vars, sizeof at_vars, "@%s", vars_path);
		snprintf(forks, sizeof forks, "%zu", json_array_size(names));
		snprintf(limit, sizeof limit, "%.0f", o->time_limit);
		if (!o->quiet) {
			char *shown = fleet_shown(fleet_id);

			fprintf(stderr, "runner: fleet: %zu hosts, run %s, seed %llu, time limit %s s\n",
				json_array_size(names), shown ? shown : "?", (unsigned long long)o->seed,
				limit);
			free(shown);
		}
		/* the playbook's own bound: every host's time limit, plus copying */
		prc = fleet_run_tool(pargv, NULL, o->quiet, o->time_limit + 900, &how);
		if (prc == 127) {
			fprintf(stderr, "runner: fleet: ansible-playbook not found: install ansible "
				"(make deps)\n");
			rc = EXIT_USAGE;
			goto out;
		}
		if (how == SUPERVISE_END_INTERRUPT || how == SUPERVISE_END_TIMEOUT) {
			char *sargv[] = {"ansible-playbook", "-i", (char *)o->ansible, "-f", forks, "-e",
					 at_vars, stop, NULL};
			int was = fleet_interrupted();

			fprintf(stderr, "runner: fleet: %s: stopping the hosts' runs\n",
				how == SUPERVISE_END_INTERRUPT ? "interrupted" : "the time limit passed");
			fleet_set_interrupted(0);	/* let the stop playbook run, bounded */
			fleet_run_tool(sargv, NULL, 1, 120, &how);
			fleet_set_interrupted(was || how == SUPERVISE_END_INTERRUPT);
		}
	}
	if (tokens[0])		/* the hosts' copies went with their runs (or stop.yml) */
		fleet_rm_tree(tokens);
	fleet_collect(stage, names, fleet_id, fleet_interrupted() ? "interrupted before this host finished" :
		      "no outcome from ansible-playbook for this host (see its output above)", hosts, runs);
	{
		json_t *x;
		size_t i;

		json_array_foreach(hosts, i, x)
			fleet_pairs_say(jsonutil_str(x, "name"), json_object_get(x, "peer"), o->quiet);
	}
	rc = fleet_finish(stage, fleet_id, hosts, runs, o);
out:
	if (tokens[0])
		fleet_rm_tree(tokens);
	free(version);
	json_decref(names);
	json_decref(argv);
	json_decref(vars);
	json_decref(hosts);
	json_decref(runs);
	return rc;
}

int fleet_main(char **specs, size_t n, struct cli_opts *o)
{
	char stage[PATH_MAX], final[PATH_MAX], id[256], err[1024];
	struct sigaction old_int, old_term;
	int rc;

	if (!!o->ansible + !!o->slurm != 1) {
		fprintf(stderr, "runner: fleet: give one of --ansible INVENTORY or --slurm\n");
		return EXIT_USAGE;
	}
	if (o->ansible && (o->slurm_nodes || o->slurm_nodelist || o->partition || o->shared_dir)) {
		fprintf(stderr, "runner: fleet: --nodes, --nodelist, --partition and --shared-dir go "
			"with --slurm\n");
		return EXIT_USAGE;
	}
	if (o->slurm && o->pairs) {
		fprintf(stderr, "runner: fleet: --pairs goes with --ansible: Slurm starts the tasks of a "
			"job when it sees fit, so a node's peer may not be running while it measures; run "
			"the network specs in one job of your own (docs/fleet.md, \"Network experiments\")\n");
		return EXIT_USAGE;
	}
	if (o->slurm && !o->shared_dir) {
		fprintf(stderr, "runner: fleet: --slurm needs --shared-dir DIR, a folder every node "
			"and this machine see (shared storage)\n");
		return EXIT_USAGE;
	}
	if (o->slurm_nodes && o->slurm_nodelist) {
		fprintf(stderr, "runner: fleet: give --nodes or --nodelist, not both\n");
		return EXIT_USAGE;
	}
	for (size_t k = 0; k < n; k++)
		if (access(specs[k], R_OK) != 0) {
			fprintf(stderr, "runner: fleet: %s: %s\n", specs[k], strerror(errno));
			return EXIT_USAGE;
		}
	if (!(o->time_limit > 0))
		o->time_limit = 3600;
	if (!o->has_seed && getrandom(&o->seed, sizeof o->seed, 0) != sizeof o->seed)
		o->seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	o->has_seed = 1;
	if (o->run_id)
		snprintf(id, sizeof id, "%s", o->run_id);
	else
		results_run_id(id, sizeof id, "fleet-",
			       ((uint64_t)getpid() * 2654435761u) ^ (uint64_t)time(NULL));
	snprintf(final, sizeof final, "%s/%s", o->out_dir, id);
	if (access(final, F_OK) == 0) {
		fprintf(stderr, "runner: fleet: %s: run folder already exists\n", final);
		return EXIT_USAGE;
	}
	if (results_mkdirs(o->out_dir, err, sizeof err) < 0) {
		fprintf(stderr, "runner: fleet: %s\n", err);
		return EXIT_INTERNAL;
	}
	/* the stage: what the hosts send back, removed at the end (absolute:
	   the playbook writes into it from its own working directory) */
	{
		char rel[PATH_MAX], *abs;

		snprintf(rel, sizeof rel, "%s/.fleet-XXXXXX", o->out_dir);
		if (!mkdtemp(rel) || !(abs = realpath(rel, NULL))) {
			fprintf(stderr, "runner: fleet: %s: %s\n", rel, strerror(errno));
			return EXIT_INTERNAL;
		}
		snprintf(stage, sizeof stage, "%s", abs);
		free(abs);
	}
	fleet_catch_signals(&old_int, &old_term);
	rc = o->ansible ? fleet_ansible(specs, n, o, stage, id) : fleet_slurm(specs, n, o, stage, id);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	fleet_rm_tree(stage);
	return rc;
}
