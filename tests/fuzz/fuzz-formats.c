/*
 * fuzz-formats.c: every format reader of formats/ (dirigo-trace(5) to
 * dirigo-replay(5)) on every record of the input, by the record's type,
 * then the gathering and checks the stages share (obligation_take,
 * sym_state_take and _finish, the verdict invariants).
 */
#include "fuzz.h"

#include <string.h>

#include "formats/obligation.h"
#include "formats/replay.h"
#include "engine/resolve.h"
#include "formats/symbolic.h"
#include "formats/torch.h"
#include "formats/trace.h"
#include "formats/verdict.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	fz_init("fuzz-formats");
	return 0;
}

struct all {
	struct arena a;
	struct ectx *cx;
	struct sym_state st;
	struct vd_seen seen;
};

static void read_one(struct all *x, const struct record *rec)
{
	const char *t = rec->type;
	struct arena *a = &x->a;
	union {
		struct trace_module tm; struct trace_alloc ta; struct trace_free tf; struct trace_copy tc;
		struct trace_memset ts; struct trace_launch tl; struct trace_end te;
		struct torch_tensor tt; struct torch_op to; struct torch_input ti; struct torch_output tu;
		struct torch_unsupported tx; struct obl_input oi; struct obl_value ov; struct obl_module om;
		struct obl_launch ol; struct obl_output oo; struct obl_op op; struct obl_trimmed ot;
		struct sym_writes sw; struct sym_finding sf; struct sym_unsupported su;
		struct vd_location vl; struct vd_witness vw; struct vd_verdict vv;
		struct rp_replay rr; struct rp_report rp;
	} u;
	if (!strcmp(t, "module")) { trace_read_module(rec, a, &u.tm); obl_read_module(rec, a, &u.om); }
	else if (!strcmp(t, "alloc")) trace_read_alloc(rec, a, &u.ta);
	else if (!strcmp(t, "free")) trace_read_free(rec, a, &u.tf);
	else if (!strcmp(t, "copy")) trace_read_copy(rec, a, &u.tc);
	else if (!strcmp(t, "memset")) trace_read_memset(rec, a, &u.ts);
	else if (!strcmp(t, "launch")) { trace_read_launch(rec, a, &u.tl); obl_read_launch(rec, a, &u.ol); }
	else if (!strcmp(t, "end")) trace_read_end(rec, a, &u.te);
	else if (!strcmp(t, "tensor")) torch_read_tensor(rec, a, &u.tt);
	else if (!strcmp(t, "op")) { torch_read_op(rec, a, &u.to); obl_read_op(rec, a, &u.op); }
	else if (!strcmp(t, "tinput")) torch_read_input(rec, a, &u.ti);
	else if (!strcmp(t, "toutput")) torch_read_output(rec, a, &u.tu);
	else if (!strcmp(t, "tunsupported")) torch_read_unsupported(rec, a, &u.tx);
	else if (!strcmp(t, "input")) obl_read_input(rec, a, &u.oi);
	else if (!strcmp(t, "value")) obl_read_value(rec, a, &u.ov);
	else if (!strcmp(t, "output")) obl_read_output(rec, a, &u.oo);
	else if (!strcmp(t, "trimmed")) obl_read_trimmed(rec, a, &u.ot);
	else if (!strcmp(t, "writes")) sym_read_writes(rec, x->cx, a, &u.sw);
	else if (!strcmp(t, "finding")) sym_read_finding(rec, a, &u.sf);
	else if (!strcmp(t, "unsupported")) sym_read_unsupported(rec, a, &u.su);
	else if (!strcmp(t, "location")) { if (vd_read_location(rec, a, &u.vl)) vd_seen_count(&x->seen, &u.vl); }
	else if (!strcmp(t, "witness")) vd_read_witness(rec, a, &u.vw);
	else if (!strcmp(t, "verdict")) { if (vd_read_verdict(rec, a, &u.vv)) vd_check_verdict(rec, &u.vv, &x->seen); }
	else if (!strcmp(t, "replay")) rp_read_replay(rec, a, &u.rr);
	else if (!strcmp(t, "report")) rp_read_report(rec, a, &u.rp);
}

static int gather(struct stream_in *in, void *user)
{
	struct all *x = user;
	struct record rec;
	int r;
	bool ok = true;
	while ((r = stream_in_next(in, &rec)) > 0) {
		read_one(x, &rec);
		if (ok && sym_state_take(&x->st, &rec) < 0)
			ok = false;
	}
	if (r == 0 && ok && sym_state_finish(&x->st, "fuzz", false))
		obligation_check_outputs(&x->st.obl, x->st.findings.len, "fuzz");
	return EXIT_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct all x;
	memset(&x, 0, sizeof x);
	arena_init(&x.a);
	x.cx = ectx_new();
	sym_state_init(&x.st, x.cx);
	fz_run(data, size, gather, &x);
	sym_state_release(&x.st);
	ectx_free(x.cx);
	arena_release(&x.a);
	return 0;
}
