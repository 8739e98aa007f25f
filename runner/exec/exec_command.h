/*
 * exec_command.h - the spec's `command:` made concrete for one point
 * (private to exec): placeholders replaced by the point's values, argv
 * arrays ready for execvp, the place for kept output.
 */
#ifndef SYSMETER_EXEC_COMMAND_H
#define SYSMETER_EXEC_COMMAND_H

#include <stddef.h>
#include "exec/loader.h"
#include "plan/plan.h"
#include "spec/spec.h"

/* Where the pieces come from: bin_dir fills {bin}; output_prefix (NULL
   when nothing is kept) is handed on as it is. */
struct exec_command_in {
	const struct spec *s;
	const struct loaded_probe *lp;
	const struct plan_point *pt;
	const char *bin_dir;
	const char *output_prefix;
};

/* A malloc'd probe_command (one block of allocations, freed with
   exec_command_free), or NULL with the message in err. */
struct probe_command *exec_command_build(const struct exec_command_in *in, char *err,
					 size_t errlen);
void exec_command_free(struct probe_command *cmd);

#endif
