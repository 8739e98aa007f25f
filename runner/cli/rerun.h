/* rerun.h - `runner rerun RUN`: re-execute a saved run exactly (private to
   cli/); its checks and its replay of the options are shared with resume. */
#ifndef SYSMETER_RERUN_H
#define SYSMETER_RERUN_H

#include <jansson.h>

#include "cli/options.h"

struct engine_request;

int rerun_main(const char *run_dir, const struct cli_opts *o);

/* The differences between a saved run and now that make numbers
   incomparable, as messages appended to `changes`: each probe's binary
   (sha256, or no longer loading) and the machine.  files[i] gets the saved
   spec of the manifest's i-th experiment (malloc'd).  Probes load only from
   the probe directories from here on (a run folder is untrusted): a probe
   the run loaded from elsewhere is refused with the --probe-dir that trusts
   it, -1 (said).  Returns 1 when a probe changed (refused without --force). */
int rerun_check(const char *run_dir, json_t *manifest, char **files, json_t *changes);

/* Machine fields that changed between two machine descriptions. */
void rerun_machine_changes(const json_t *old, const json_t *now, json_t *changes);

/* The saved run's options into the request: --set (rq->opt.sets malloc'd,
   free it; the strings borrowed from the manifest), --quick, the seed,
   --peer and --nfs unless given now (`now`'s other options as given); no
   --filter (the saved specs are what ran).  -1: no memory. */
int rerun_replay(const json_t *manifest, const struct cli_opts *now, struct engine_request *rq);

#endif
