/* fleet_run.h - what the fleet's engines share (fleet.c: the tools, the
   build, the outcome; fleet_slurm.c: the Slurm path).  Private to cli/. */
#ifndef SYSMETER_FLEET_RUN_H
#define SYSMETER_FLEET_RUN_H

#include <stddef.h>
#include <sys/types.h>
#include <jansson.h>
#include "cli/options.h"

/* Run argv (PATH search) as a supervised child, its stdout to out_file (or
   to our stderr; quiet: both to /dev/null), for limit_s at most; Ctrl-C
   kills its process group.  The exit code, or -1 (*how: SUPERVISE_END_*). */
int fleet_run_tool(char *const *argv, const char *out_file, int quiet, double limit_s, int *how);
/* SIGINT and SIGTERM set the fleet's flag from now on (the old actions
   into old_*); fleet_interrupted: one came. */
#include <signal.h>
void fleet_catch_signals(struct sigaction *old_int, struct sigaction *old_term);
int fleet_interrupted(void);
void fleet_set_interrupted(int on);
void fleet_rm_tree(const char *dir);
/* s as it may reach the terminal (text_escape: no ESC, no newline, one
   line stays one line), a new string to free; "?" for NULL, NULL when out
   of memory. */
char *fleet_shown(const char *s);
/* A file shipped beside the runner (tools/... in the tree, share/sysmeter/...
   installed): 0 with its path in out, else -1. */
int fleet_find_file(const char *rel_build, const char *rel_installed, char *out, size_t len);
/* stage/build/ (bin/runner, probes/N, specs/N) and the runner's argv for
   it (options, then specs, relative to that folder).  0, or -1 (err). */
int fleet_make_build(const char *stage, char **specs, size_t n, const struct cli_opts *o,
		     json_t *argv, char *err, size_t errlen);
/* stage/HOST.status.json and stage/HOST.tgz of every host in names into
   hosts (sysmeter.hosts/1 entries) and runs (unpacked run folders); a host
   with no status is missing with why_none. */
int fleet_collect(const char *stage, json_t *names, const char *fleet_id, const char *why_none,
		  json_t *hosts, json_t *runs);
/* The missing hosts said, the runs merged (--hosts) into OUT/<fleet_id>;
   the fleet's exit code. */
int fleet_finish(const char *stage, const char *fleet_id, json_t *hosts, json_t *runs,
		 struct cli_opts *o);
/* --pairs (fleet_pairs.c): stage/tokens/HOST, a fresh secret (mode 0600)
   for every host, the pair whose runner serve runs there; 0 and the folder
   in dir, or -1 (err; nothing left). */
int fleet_pairs_tokens(const char *stage, json_t *names, char *dir, size_t dirlen, char *err,
		       size_t errlen);
/* A host's peer as its status file tells it, checked: a new {name,
   address, why_not}, or NULL when it has none (no --pairs). */
json_t *fleet_pairs_peer(json_t *status);
/* "HOST: network peer NAME (...)", or why it had none (also when quiet). */
void fleet_pairs_say(const char *host, json_t *peer, int quiet);
/* --slurm (fleet_slurm.c). */
int fleet_slurm(char **specs, size_t n, struct cli_opts *o, const char *stage, const char *fleet_id);

#endif
