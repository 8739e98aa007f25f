/*
 * units.h - parsing and printing of quantities with units, used everywhere a
 * number may carry one (spec values, --set overrides, predictions).
 *
 * sizes:  "512", "4KiB", "1.5GB", "64k" (k/K = KiB, M = MiB, G = GiB; KB/MB/GB
 *         are powers of ten; B optional)           -> bytes
 * times:  "800ns", "10us", "10µs", "2ms", "1.5s", "2m", "1h", plain number = s
 *                                                    -> seconds
 * rates:  "12GB/s", "800MiB/s", "1Gbit/s", "1Gb/s", "10Mbps"
 *                                                    -> bytes per second
 * freqs:  "2.8GHz", "800 MHz", "2.8e9", "2.8e9Hz"     -> Hz
 * ratios: "1%", "0.25"                                -> fraction (1% = 0.01)
 */
#ifndef SYSMETER_UNITS_H
#define SYSMETER_UNITS_H

#include <stddef.h>

enum unit_kind { UNIT_NUMBER, UNIT_SIZE, UNIT_TIME, UNIT_RATE, UNIT_PERCENT, UNIT_FREQ };

/* Parse `text` as a quantity of `kind` into *out (base units).  Returns 0, or
   -1 with a message such as "expected a size like 4KiB, got '4Kb2'" in err. */
int units_parse(const char *text, enum unit_kind kind, double *out, char *err, size_t errlen);

/* Parse an integer with no unit ("15"); rejects fractions and garbage. */
int units_parse_int(const char *text, long long *out, char *err, size_t errlen);

/* Parse a boolean: true/false/yes/no/on/off/1/0. */
int units_parse_bool(const char *text, int *out, char *err, size_t errlen);

/* Parse a value given in the unit family of `probe_unit` ("ns", "us", "GB/s",
   "MB/s", "ops/s", ...) and express it in that unit: "1.2ns" with probe unit
   "us" -> 0.0012.  A bare number is taken as already in probe_unit. */
int units_parse_in(const char *text, const char *probe_unit, double *out, char *err, size_t errlen);

/* Is `unit` a time unit (ns, us, ms, s)?  Sets *ns_per_unit when non-NULL. */
int units_is_time(const char *unit, double *ns_per_unit);

/* Format bytes as the shortest exact binary form: 4096 -> "4KiB", 1536 -> "1.5KiB". */
void units_format_size(double bytes, char *buf, size_t len);
/* Format seconds readably: 0.01 -> "10ms". */
void units_format_time(double seconds, char *buf, size_t len);

/* For tables and chart labels, where a reader wants 3 significant digits
   rather than the exact value (spec texts use the two above):
   units_format_number: no exponent for ordinary magnitudes ("1.55", "84.0",
   "2140", "0.251"), "n/a" for non-finite;
   units_format_size_short: binary units, 4096 -> "4KiB", 36700160 ->
   "35MiB", 1536 -> "1.5KiB", 1000 -> "1000B". */
void units_format_number(double v, char *buf, size_t len);
void units_format_size_short(double bytes, char *buf, size_t len);

/* The unit a table shows a probe's values in (the report's tables and
   charts, `runner compare`): a time unit (ns, us/µs, ms, s) or a rate
   (B/s ... TB/s, powers of ten) is rescaled so that `typical` (in probe
   units) reads between 1 and 1000; any other unit is kept, factor 1.
   Writes the unit's name to label and returns the factor to multiply probe
   values by; *ns_per_unit (when non-NULL) is the probe unit in ns, NAN when
   it is not a time. */
double units_display(const char *probe_unit, double typical, char *label, size_t len,
		     double *ns_per_unit);

#endif
