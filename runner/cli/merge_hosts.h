/* merge_hosts.h - `runner merge --hosts RUN...`: the runs of the same specs
   on several hosts in one folder (hosts/<name>/ each) and one report that
   sets them side by side; --hosts-file names the hosts and lists the
   missing ones (private to cli/). */
#ifndef SYSMETER_MERGE_HOSTS_H
#define SYSMETER_MERGE_HOSTS_H

#include <stddef.h>
#include "cli/options.h"

int merge_hosts_main(char **runs, size_t n, const char *hosts_file, const struct cli_opts *o);


/* Copy the folder src to dst (made here): folders and regular files, no
   links or devices.  0, or -1 with the message in err. */
int merge_hosts_copy_tree(const char *src, const char *dst, char *err, size_t errlen);

#endif
