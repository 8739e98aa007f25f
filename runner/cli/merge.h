/* merge.h - `runner merge RUN...`: one report from several runs, the newest
   result of each experiment, in a new run folder (private to cli/). */
#ifndef SYSMETER_MERGE_H
#define SYSMETER_MERGE_H

#include <stddef.h>
#include "cli/options.h"

int merge_main(char **runs, size_t n, const struct cli_opts *o);

#endif
