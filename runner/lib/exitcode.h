/*
 * exitcode.h - the runner's exit codes (design §5, docs/cli.md), by name.
 * Only main() exits; every command returns one of these.
 */
#ifndef SYSMETER_EXITCODE_H
#define SYSMETER_EXITCODE_H

enum exit_code {
	EXIT_OK = 0,			/* all good */
	EXIT_FAILED = 1,		/* some experiments (or points, or the report) failed;
					   the rest are saved */
	EXIT_USAGE = 2,			/* bad usage or bad input (spec, run folder) */
	EXIT_INTERNAL = 3,		/* the runner itself failed (a write, a tool) */
	EXIT_INTERRUPTED = 130,		/* Ctrl-C / SIGTERM: finished points are saved */
};

#endif
