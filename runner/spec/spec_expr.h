/*
 * spec_expr.h - the formula language of `predict:` (docs/spec-format.md,
 * "Predictions as formulas"): + - * / and parentheses over numbers with
 * units (4KiB, 100ns, 3GHz, 1.5), names (machine facts, the per-family
 * constants, the point's own parameters) and other experiments' results
 * (@tcp_rtt, @tcp_rtt[target=remote, size=64]).  No functions.
 *
 *   expr    := term { ('+' | '-') term }
 *   term    := unary { ('*' | '/') unary }
 *   unary   := '-' unary | primary
 *   primary := NUMBER [UNIT] | NAME
 *            | '@' NAME [ '[' NAME '=' VALUE { ',' NAME '=' VALUE } ']' ] [ '.' NAME ]
 *            | '(' expr ')'
 *
 * Everything is in base units: seconds, bytes, bytes/s, Hz; cycles and
 * counts are plain numbers.  A recursive-descent parser with a depth cap
 * (fuzzed by tests/fuzz/fuzz_spec.c through spec_parse).
 */
#ifndef SYSMETER_SPEC_EXPR_H
#define SYSMETER_SPEC_EXPR_H

#include <stddef.h>

/* What a value is, for writing it back with its unit in the filled-in
   formula ("150 cycles / 2.99 GHz"). */
enum spec_qty {
	SPEC_Q_NUM, SPEC_Q_CYCLES, SPEC_Q_HZ, SPEC_Q_BYTES, SPEC_Q_SECONDS, SPEC_Q_RATE,
	SPEC_Q_BITS, SPEC_Q_BOOL,
	SPEC_Q_SPB			/* seconds per byte: a rate's part as time per byte */
};

enum spec_expr_op {
	SPEC_X_NUM, SPEC_X_NAME, SPEC_X_REF, SPEC_X_ADD, SPEC_X_SUB, SPEC_X_MUL, SPEC_X_DIV,
	SPEC_X_NEG
};

struct spec_expr_node {
	enum spec_expr_op op;
	double num;			/* SPEC_X_NUM: base units */
	enum spec_qty qty;		/* SPEC_X_NUM: from its unit */
	char *name;			/* SPEC_X_NAME: the name; SPEC_X_REF: the experiment */
	char **sel_param, **sel_text; size_t n_sel;	/* SPEC_X_REF: [p=v, ...] */
	char *metric;			/* SPEC_X_REF: .NAME, a value the probe recorded; NULL: the estimate */
	int a, b;			/* operands (node indices), -1 when none */
	size_t off, len;		/* the token (NAME, REF with its [...]) in the text */
};

struct spec_formula {
	char *text;
	struct spec_expr_node *n; size_t nn;
	int root;
};

/* Parse text.  0, or -1 with *err_off the byte offset of the fault in text
   and a message ("expected a name, a number or '(' after '*'") in err. */
int spec_expr_parse(const char *text, struct spec_formula *f, size_t *err_off, char *err,
		    size_t errlen);
void spec_expr_free(struct spec_formula *f);

/* 1 when text is a formula rather than a plain quantity ("1.2ns", "5"):
   it holds a name, an operator or a parenthesis. */
int spec_expr_is_formula(const char *text);

/* The names a formula may use besides the point's parameters: the
   machine facts and the per-family constants (docs/spec-format.md).
   Each has a kind and a one-line meaning. */
struct spec_expr_name {
	const char *name;
	enum spec_qty qty;
	const char *group;		/* "machine" | "given" | "table" | "point" (the probe's extra) */
	const char *help;
};
const struct spec_expr_name *spec_expr_names(size_t *n);
const struct spec_expr_name *spec_expr_name(const char *name);

/*
 * Evaluate.  lookup(ctx, node, &value, &qty, missing, mlen) answers a
 * SPEC_X_NAME or SPEC_X_REF node: 0 with the value in base units, or -1
 * with what is missing.  *out gets the value; filled (when not NULL) the
 * formula with each name replaced by its value and unit, as in
 * "150 cycles / 2.99 GHz".  0, or -1 with what is missing in `missing`
 * (the first missing name, or "division by zero").
 */
typedef int (*spec_expr_lookup)(void *ctx, const struct spec_expr_node *n, double *value,
				enum spec_qty *qty, char *missing, size_t mlen);
int spec_expr_eval(const struct spec_formula *f, spec_expr_lookup lookup, void *ctx, double *out,
		   char *filled, size_t filled_len, char *missing, size_t mlen);

/* The same for the sub-tree at node k alone (one term of a formula, as
   predict.c splits it at its top-level + and -): *out its value; text
   (when not NULL) the sub-tree's own source text, with the parentheses it
   needs; filled the same text with each name replaced by its value. */
int spec_expr_eval_node(const struct spec_formula *f, int k, spec_expr_lookup lookup, void *ctx,
			double *out, char *text, size_t text_len, char *filled, size_t filled_len,
			char *missing, size_t mlen);

/* A value with its unit, as the filled-in formula writes it: "2.99 GHz",
   "48 KiB", "80 ns", "51.2 GB/s", "150 cycles". */
void spec_expr_format(double v, enum spec_qty q, char *buf, size_t len);

#endif
