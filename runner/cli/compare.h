/* compare.h - `runner compare A B`: point by point, with significance tests. */
#ifndef SYSMETER_COMPARE_H
#define SYSMETER_COMPARE_H

int compare_main(const char *run_a, const char *run_b);

#endif
