/*
 * file_cache.h - the `file_cache` finding of a spec: the file-cache size
 * read off a curve of second-read time against file size (probe fs_cache),
 * beside the cgroup limit and what /proc/meminfo said at the start.
 */
#ifndef SYSMETER_RESULTS_FILE_CACHE_H
#define SYSMETER_RESULTS_FILE_CACHE_H

#include <jansson.h>

/* points: the experiment's points; xname: the size parameter; unit: the
   probe's unit (for the summary).  Reads each point's estimate, params
   (xname, limit) and extra medians (resident, mem_total, mem_available,
   cached; hit_share, cal_cached_us and cal_device_us, which when every
   point has them make the fit one of miss shares, fitted_to "miss_share",
   instead of times, "time").  Returns {param, knee_bytes (null when none),
   fitted_to, climb_from_bytes,
   climb_to_bytes, cached_level, device_level, most_cached_bytes,
   most_cached_at, limit_bytes, mem_total, mem_available, cached,
   knee_over_reference, summary}; NULL when out of memory. */
json_t *results_file_cache(const json_t *points, const char *xname, const char *unit);

#endif
