/* rerun.h - `runner rerun RUN`: re-execute a saved run exactly (private to cli/). */
#ifndef SYSMETER_RERUN_H
#define SYSMETER_RERUN_H

#include "cli/run.h"

int rerun_main(const char *run_dir, int force, const struct cli_opts *base);

#endif
