/*
 * test_fleet_vars.c - the fleet's extra-vars for Ansible (cli/fleet_vars):
 * every string tagged !unsafe (Ansible then never templates it), written
 * in ASCII with YAML's escapes, so that PyYAML reads back the very
 * characters; what cannot be an argument (a NUL) is refused.  That Ansible
 * really leaves such values alone is tests/715-fleet-local.bats's part.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "cli/fleet_vars.h"

/* vars emitted into a string (static buffer), or NULL when refused */
static const char *emitted(json_t *vars)
{
	static char buf[4096];
	FILE *f = fmemopen(buf, sizeof buf, "w");
	int rc;

	if (!f)
		return NULL;
	rc = fleet_vars_emit(f, vars);
	fclose(f);
	json_decref(vars);
	return rc == 0 ? buf : NULL;
}

int main(void)
{
	is_str(emitted(json_pack("{s:s}", "fleet_id", "{{ lookup('pipe','id') }}")),
	       "{!unsafe \"fleet_id\": !unsafe \"{{ lookup('pipe','id') }}\"}\n",
	       "a template is one more string, tagged !unsafe");
	is_str(emitted(json_pack("{s:[s,s]}", "fleet_argv", "--set", "a=\"q\" \\ b")),
	       "{!unsafe \"fleet_argv\": [!unsafe \"--set\", !unsafe \"a=\\\"q\\\" \\\\ b\"]}\n",
	       "an array's strings each tagged; quote and backslash escaped");
	is_str(emitted(json_pack("{s:s}", "x", "\x1b[31m\n\t\x7f")),
	       "{!unsafe \"x\": !unsafe \"\\x1b[31m\\x0a\\x09\\x7f\"}\n",
	       "controls and DEL as \\xNN (PyYAML refuses DEL written raw)");
	is_str(emitted(json_pack("{s:s}", "x", "\xc3\xa9\xc2\x85\xe2\x80\xae\xf0\x9f\x98\x80")),
	       "{!unsafe \"x\": !unsafe \"\\u00e9\\u0085\\u202e\\U0001f600\"}\n",
	       "non-ASCII as \\uNNNN, beyond the BMP as \\UNNNNNNNN: the file is ASCII");
	is_str(emitted(json_pack("{s:I,s:b,s:b,s:n}", "n", (json_int_t)3600, "t", 1, "f", 0, "z")),
	       "{!unsafe \"n\": 3600, !unsafe \"t\": true, !unsafe \"f\": false, !unsafe \"z\": null}\n",
	       "numbers, booleans and null as YAML's");
	ok(emitted(json_pack("{s:s#}", "x", "a\0b", (size_t)3)) == NULL, "a NUL is refused");
	ok(emitted(json_pack("{s:f}", "x", 1.5)) == NULL, "a real (no variable of ours) is refused");
	return done_testing();
}
