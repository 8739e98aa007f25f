/*
 * spec.c - experiment specs (design §3): a file or text -> checked struct
 * spec; --set overrides; freeing.  The module's other parts: spec_yaml.c
 * (libyaml document, positions, grafting), spec_keys.c (one handler per
 * key), spec_bind.c (the probe's parameter table).
 *
 * A --set override is grafted into the YAML document and the whole spec is
 * parsed again, so an override is checked by the very handler that checks
 * the file, with the same messages.
 */
#include "spec/spec.h"
#include "spec/spec_bind.h"
#include "spec/spec_command.h"
#include "spec/spec_keys.h"
#include "spec/spec_yaml.h"
#include "lib/text.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

static int oom(struct spec_yaml_ctx *c)
{
	return spec_yaml_fail(c, (struct spec_pos){0, 0}, "out of memory");
}

static void sha256_hex(const char *text, size_t len, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (!EVP_Digest(text, len, md, &n, EVP_sha256(), NULL) || n != 32)
		n = 0;
	for (unsigned int i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	out[2 * n] = '\0';
}

/* "specs/ram_access.yaml" -> "ram_access" */
static char *file_stem(const char *path)
{
	const char *b = strrchr(path, '/'), *dot;

	b = b ? b + 1 : path;
	dot = strrchr(b, '.');
	return strndup(b, dot && dot != b ? (size_t)(dot - b) : strlen(b));
}

/*
 * Parse text (+ overrides ov[0..n_ov-1], grafted in order) into *s.
 * cur_ov: which override's errors are reported without prefix (the one the
 * caller is applying); ovname: the experiment name for "--set NAME.x" prefixes.
 */
/* A prediction never uses its own experiment's measurement (design.md
   section 9): a model that reads the result it predicts predicts nothing.
   The name is known only now (it may come from the file's stem). */
static int self_reference(struct spec_yaml_ctx *c, const struct spec *s)
{
	for (size_t i = 0; i < s->n_predict; i++)
		for (size_t k = 0; k < sizeof s->predict[i].fx / sizeof s->predict[i].fx[0]; k++) {
			const struct spec_formula *f = s->predict[i].fx[k];

			for (size_t j = 0; f && j < f->nn; j++)
				if (f->n[j].op == SPEC_X_REF && strcmp(f->n[j].name, s->name) == 0)
					return spec_yaml_fail(c, s->predict[i].pos,
							      "predict: @%s is this experiment's own result: a "
							      "prediction is a model of the machine and never "
							      "uses its own measurement", s->name);
		}
	return 0;
}

static int parse_all(const char *path, const char *text, size_t len, char *const *ov, size_t n_ov,
		     size_t cur_ov, const char *ovname, struct spec *s, char *err, size_t errlen)
{
	struct spec_yaml_ctx c = {0};
	yaml_node_t *root;
	int rc = -1;

	memset(s, 0, sizeof(*s));
	c.file = path;
	c.name = ovname;
	c.ov = ov;
	c.n_ov = n_ov;
	c.cur_ov = cur_ov;
	c.err = err;
	c.errlen = errlen;
	s->file = strdup(path);
	s->text = malloc(len + 1);
	if (!s->file || !s->text) {
		oom(&c);
		goto out;
	}
	memcpy(s->text, text, len);
	s->text[len] = '\0';
	sha256_hex(text, len, s->sha256);
	spec_keys_defaults(s);
	if (n_ov) {
		if (!(s->overrides = calloc(n_ov, sizeof(*s->overrides)))) {
			oom(&c);
			goto out;
		}
		for (; s->n_overrides < n_ov; s->n_overrides++)
			if (!(s->overrides[s->n_overrides] = strdup(ov[s->n_overrides]))) {
				oom(&c);
				goto out;
			}
	}
	if (spec_yaml_load(&c, text, len) < 0)
		goto out;
	root = yaml_document_get_root_node(&c.doc);
	if (!root) {
		spec_yaml_fail(&c, (struct spec_pos){1, 1},
			"empty spec: expected a mapping with at least a 'probe' key");
		goto out;
	}
	if (root->type != YAML_MAPPING_NODE) {
		spec_yaml_fail(&c, spec_yaml_pos(&c, root),
			"expected a mapping of keys (probe, params, ...) at the top level, got %s",
			spec_yaml_what(root, (char[96]){0}, 96));
		goto out;
	}
	for (size_t k = 1; k <= n_ov; k++)
		if (spec_yaml_apply_override(&c, k) < 0)
			goto out;
	root = yaml_document_get_root_node(&c.doc);	/* grafting may move nodes */
	if (spec_keys_parse(&c, s, root) < 0)
		goto out;
	if (!s->name) {
		/* the experiment is named after the file: its stem must be a
		   name as `name:` would accept (results/NAME.json, the report) */
		if (!(s->name = file_stem(path))) {
			oom(&c);
			goto out;
		}
		if (!spec_keys_is_name(s->name)) {
			snprintf(c.err, c.errlen,
				 "%s: the file name '%s' cannot name an experiment: rename the file to "
				 "letters, digits, '_' or '-', or give the spec a `name:`", path, s->name);
			goto out;
		}
	}
	if (self_reference(&c, s) < 0)
		goto out;
	if (
	    (!s->title && !(s->title = strdup(s->name))) ||
	    (!s->group && !(s->group = strdup(SPEC_DEFAULT_GROUP))) ||
	    (!s->description && !(s->description = strdup("")))) {
		oom(&c);
		goto out;
	}
	rc = 0;
out:
	spec_yaml_free(&c);
	if (rc < 0)
		spec_free(s);
	return rc;
}

int spec_parse(const char *path, const char *text, size_t len, struct spec *out, char *err,
	       size_t errlen)
{
	return spec_yaml_clean_err(parse_all(path, text, len, NULL, 0, 0, NULL, out, err, errlen),
				   err, errlen);
}

/* A spec is a page of YAML; a larger file is not one (or is an attack on
   the parser), and only a regular file has an end: a FIFO would block
   check forever and /dev/zero would fill memory. */
#define SPEC_MAX_BYTES (1024 * 1024)

int spec_load(const char *path, struct spec *out, char *err, size_t errlen)
{
	/* O_NONBLOCK: opening a FIFO with no writer must not wait */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	char *buf = NULL;
	size_t len = 0;
	struct stat st;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!text_printable_utf8(path)) {
		char shown[1024];

		text_escape(path, shown, sizeof shown);
		snprintf(err, errlen, "%s: a spec's path must be printable UTF-8 (rename the file)", shown);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (fd < 0 || fstat(fd, &st) < 0)
		goto fail;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file (a spec is read only from a file)", path);
		close(fd);
		return -1;
	}
	if (st.st_size > SPEC_MAX_BYTES) {
		snprintf(err, errlen, "%s: %lld bytes: larger than a spec can be (%d bytes at most)", path,
			 (long long)st.st_size, SPEC_MAX_BYTES);
		close(fd);
		return -1;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		goto fail;
	/* read to the end, but never past the cap (the file may grow) */
	for (;;) {
		ssize_t got = read(fd, buf + len, (size_t)st.st_size + 1 - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			goto fail;
		if (got == 0)
			break;
		len += (size_t)got;
		if (len > (size_t)st.st_size) {
			snprintf(err, errlen, "%s: the file grew while it was read", path);
			close(fd);
			free(buf);
			return -1;
		}
	}
	close(fd);
	rc = spec_parse(path, buf, len, out, err, errlen);
	free(buf);
	return rc;
fail:
	snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(buf);
	return -1;
}

static int override_one(struct spec *s, const char *assignment, char *err, size_t errlen)
{
	size_t n = s->n_overrides + 1;
	char **ov = calloc(n, sizeof(*ov));
	struct spec t;
	int rc;

	if (!ov) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i + 1 < n; i++)
		ov[i] = s->overrides[i];
	ov[n - 1] = (char *)assignment;
	rc = parse_all(s->file, s->text, strlen(s->text), ov, n, n, s->name, &t, err, errlen);
	free(ov);
	if (rc < 0)
		return -1;
	if (s->bound && spec_bind_as(&t, s->bound, n, err, errlen) < 0) {
		spec_free(&t);
		return -1;
	}
	spec_free(s);
	*s = t;
	return 0;
}

int spec_override(struct spec *s, const char *assignment, char *err, size_t errlen)
{
	return spec_yaml_clean_err(override_one(s, assignment, err, errlen), err, errlen);
}

static void free_where(struct spec_where *w, size_t n)
{
	for (size_t i = 0; w && i < n; i++) {
		free(w[i].param);
		free(w[i].text);
	}
	free(w);
}

static void free_strs(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

void spec_free(struct spec *s)
{
	if (!s)
		return;
	spec_unbind(s);
	free(s->file);
	free(s->text);
	free(s->name);
	free(s->title);
	free(s->group);
	free(s->probe);
	free(s->description);
	free(s->discussion);
	for (size_t i = 0; s->params && i < s->n_params; i++) {
		struct spec_param *sp = &s->params[i];
		free(sp->name);
		free_strs(sp->raw, sp->n_raw);
		free(sp->raw_pos);
		free(sp->from);
		free(sp->to);
		free(sp->by);
	}
	free(s->params);
	free_strs(s->subtract, s->n_subtract);
	free(s->subtract_pos);
	for (size_t i = 0; s->predict && i < s->n_predict; i++) {
		free_where(s->predict[i].where, s->predict[i].n_where);
		free(s->predict[i].value_text);
		free(s->predict[i].hw_text);
		free(s->predict[i].machine);
		free(s->predict[i].sw_text);
		free(s->predict[i].why);
		for (int f = 0; f < 3; f++)
			if (s->predict[i].fx[f]) {
				spec_expr_free(s->predict[i].fx[f]);
				free(s->predict[i].fx[f]);
			}
	}
	free(s->predict);
	free_strs(s->uses, s->n_uses);
	for (size_t i = 0; s->reference && i < s->n_reference; i++) {
		free(s->reference[i].machine);
		free_where(s->reference[i].where, s->reference[i].n_where);
		free(s->reference[i].value_text);
	}
	free(s->reference);
	free(s->chart.x);
	free(s->chart.y);
	free(s->chart.series);
	free(s->chart.xlabel);
	free(s->chart.ylabel);
	free(s->chart.title);
	free(s->chart.kind);
	free_strs(s->findings, s->n_findings);
	free(s->beside);
	free(s->beside_rtt);
	free_strs(s->beside_where, s->n_beside_where);
	free_strs(s->overrides, s->n_overrides);
	free_strs(s->quick, s->n_quick);
	free(s->quick_pos);
	spec_command_free(&s->command);
	memset(s, 0, sizeof(*s));
}
