/*
 * report_run.h - the view's "run" object and "machine" table, from the
 * manifest alone (part of the report, report.h; docs/templates.md).
 */
#ifndef SYSMETER_REPORT_RUN_H
#define SYSMETER_REPORT_RUN_H

#include <jansson.h>

/* view.run: id, dates, duration, host, command, seed, version, status... */
json_t *report_run_view(json_t *manifest);

/* view.machine: [{label, value}] rows from the manifest's "machine", and
   an "NFS server" row from its "nfs" when the run had --nfs. */
json_t *report_run_machine(json_t *machine, json_t *nfs);

/* The peer (--peer) beside this machine: {address, why_not, rows: [{label,
   local, peer}]} from the manifest's "peer", null without --peer. */
json_t *report_run_peer(json_t *man);

#endif
