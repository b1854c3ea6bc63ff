/*
 * axioms.h: sound identities and approximation axioms (paper 4.2), applied
 * to both sides' expressions before they are compared.
 *
 * The rules form one table (axioms.c); each rule belongs to a group:
 * sound identities (always on) normalise two ways of writing one
 * mathematical function to a common vocabulary (1/(1+exp(-x)) is
 * sigmoid(x), log(1+y) is log1p(y), ...); approximation axioms, each
 * group switched on or off by name, declare an approximation equal to
 * the function it approximates:
 *
 *   gelu-tanh   tanh(sqrt(2/pi)(x + 0.044715x^3)) = erf(x/sqrt2), i.e.
 *               gelu_tanh(x) = gelu_erf(x) inside 0.5x(1+...); constants
 *               that agree to float precision count as equal here
 *   fast-math   rcp.approx(x) = 1/x, rsqrt(x) = 1/sqrt(x),
 *               exp2(x*log2e) = exp(x), log2(x)*ln2 = log(x)
 *
 * Normalisation copies an expression into a fresh context, visiting
 * children in an order given by their structure alone (never by node ids,
 * which depend on what a context built before), so that the copy's shape,
 * and what a solver or an evaluator does with it, depends only on the
 * expression: two workers that built the same expression after different
 * histories get identical copies.
 */
#ifndef DIRIGO_AXIOMS_H
#define DIRIGO_AXIOMS_H

#include <stdbool.h>
#include <stddef.h>

#include "libcommon/expr.h"

enum {
	AX_SOUND = 0,                /* group of the sound identities: always on */
	AX_GELU_TANH = 1,
	AX_FAST_MATH = 2,
	AX_DEFAULT = AX_GELU_TANH | AX_FAST_MATH,
};

/* Parses a comma-separated list of group names ("gelu-tanh,fast-math"),
 * "none" or "all".  Returns the mask, or -1 with *bad set to the start of
 * the first name it does not know (inside s). */
int ax_parse(const char *s, const char **bad);
/* The names of the groups in mask, comma-separated, or "none", in buf. */
const char *ax_format(unsigned mask, char *buf, size_t n);

struct axiom {
	const char *name;            /* "sigmoid-exp", "gelu-tanh", ... */
	unsigned group;              /* AX_SOUND or one AX_* bit */
	const char *what;            /* the identity, for people */
	/* The rewritten node, or NULL when the rule does not apply.  e lives
	 * in cx and its arguments are already normalised. */
	const struct expr *(*apply)(struct ectx *cx, const struct expr *e);
};
extern const struct axiom ax_table[];
extern const unsigned ax_count;

/* A normaliser: copies expressions of any context into dst (borrowed),
 * applying the rules of the groups in mask (and the sound identities)
 * bottom-up until none applies.  Copies are memoised for the
 * normaliser's lifetime, so expressions normalised by one normaliser
 * share their common parts. */
struct ax_norm;
struct ax_norm *ax_norm_new(struct ectx *dst, unsigned mask);
const struct expr *ax_norm(struct ax_norm *n, const struct expr *e);
/* Rewrites done so far (rules that fired). */
unsigned long ax_norm_fired(const struct ax_norm *n);
void ax_norm_free(struct ax_norm *n);                 /* NULL ok */

#endif
