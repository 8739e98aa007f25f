/*
 * wake.h - the drift check's second canary (private to engine/): the time
 * one CPU takes to wake a task on another and hear back.  On a VM this is
 * the hypervisor's work (an IPI, a halted vCPU scheduled again), and it
 * moves when the host's state does while pure CPU work does not: seen on a
 * Zen 5 guest, a whole run whose cross-CPU hand-offs, TCP round trips and
 * file reads took 13-26 % longer than an hour before, its CPU canary and
 * core clock within 2 %.
 */
#ifndef SYSMETER_ENGINE_WAKE_H
#define SYSMETER_ENGINE_WAKE_H

#include <sched.h>

/* The median round trip, in microseconds, of a one-byte ping-pong over two
   pipes between the calling thread (pinned to cpu by the caller) and a
   thread pinned to another CPU of allowed (the caller's affinity before it
   pinned itself), over n exchanges after one untimed.  NaN with no other
   CPU allowed, or when the thread or its pipes cannot be made. */
double wake_round_trip_us(int cpu, const cpu_set_t *allowed, int n);

#endif
