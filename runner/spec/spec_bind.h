/*
 * spec_bind.h - binding a spec to a probe (private to the spec module; the
 * public entry point is spec_bind() in spec.h).
 */
#ifndef SYSMETER_SPEC_BIND_H
#define SYSMETER_SPEC_BIND_H

#include <stddef.h>
#include "spec/spec.h"

/* spec_bind(), with errors about nodes of override cur_ov (1-based; 0 =
   none) left without a prefix: spec_override()'s caller adds one. */
int spec_bind_as(struct spec *s, const struct probe *p, size_t cur_ov, char *err, size_t errlen);

/* Free what binding made (axes, per-param values); s->bound = NULL. */
void spec_unbind(struct spec *s);

#endif
