/*
 * resume.h - `runner resume RUN` (private to cli/): an interrupted run
 * continued in its own folder.  resume_main checks the run, replays its
 * options as rerun does, and hands the engine a request for that folder
 * with the results saved there, whose finished rounds are kept.
 */
#ifndef SYSMETER_RESUME_H
#define SYSMETER_RESUME_H

#include "cli/options.h"

int resume_main(const char *run_dir, const struct cli_opts *now);

#endif
