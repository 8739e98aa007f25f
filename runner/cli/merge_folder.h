/* merge_folder.h - the new run folder of `runner merge` and `merge --hosts`
   (private to cli/): built in a private folder beside it, rendered, then
   renamed into place in one step, so that a reader never sees half of it
   and a failure leaves nothing. */
#ifndef SYSMETER_MERGE_FOLDER_H
#define SYSMETER_MERGE_FOLDER_H

#include <stddef.h>
#include <jansson.h>
#include "cli/options.h"

/* final = out_dir/id, which must not exist (EXIT_USAGE); tmp = a fresh
   out_dir/.merge-XXXXXX (mode 0755) to build it in.  EXIT_OK, or the exit
   code with the reason said on stderr. */
int merge_folder_begin(const char *out_dir, const char *id, char *tmp, size_t tmplen, char *final,
		       size_t finallen);

/* tmp's report rendered (unless --no-report), tmp renamed to final and
   out_dir/latest pointed at it.  EXIT_OK; else the reason said, and tmp
   removed when it was not renamed. */
int merge_folder_finish(const char *tmp, const char *final, const char *out_dir, const char *id,
			const struct cli_opts *o);

/* The head of a merged folder's manifest, into m: schema, run_id, this
   runner's version and commit, the command line and the folder it ran
   in; now (ISO 8601 UTC) into now[nowlen]. */
void merge_folder_manifest_head(json_t *m, const char *id, const struct cli_opts *o, char *now,
				size_t nowlen);

/* tmp and all in it removed (a merge that failed before finishing). */
void merge_folder_discard(const char *tmp);

#endif
