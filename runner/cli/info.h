/* info.h - `runner list` and `runner probe-help NAME`. */
#ifndef SYSMETER_INFO_H
#define SYSMETER_INFO_H

int info_list(void);
int info_probe_help(const char *name);

#endif
