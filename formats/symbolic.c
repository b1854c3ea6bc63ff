/*
 * symbolic.c: encode and decode the records of dirigo-symbolic(5).
 *
 * A "writes" record carries its own expression table ("exprs", see
 * formats/exprs.c); each write names its dom/addr/val by index into it.
 */
#include "formats/symbolic.h"
#include "formats/exprs.h"
#include "formats/obligation.h"

#include <string.h>

static const char *const atom_names[SA__COUNT] = {
	[SA_NONE] = "", [SA_ADD] = "add", [SA_MIN] = "min", [SA_MAX] = "max", [SA_AND] = "and",
	[SA_OR] = "or", [SA_XOR] = "xor", [SA_EXCH] = "exch", [SA_INC] = "inc", [SA_DEC] = "dec",
	[SA_CAS] = "cas",
};

const char *sym_atom_name(enum sym_atom_op op)
{
	return (unsigned)op < SA__COUNT ? atom_names[op] : "";
}

enum sym_atom_op sym_atom_parse(const char *name)
{
	for (unsigned i = 1; i < SA__COUNT; i++)
		if (strcmp(atom_names[i], name) == 0)
			return (enum sym_atom_op)i;
	return SA_NONE;
}

/* One entry of "writes" or "atomics". */
static void put_write(struct stream_out *w, struct etable *t, const struct sym_write *x)
{
	out_map_begin(w);
	out_ku64(w, "value", x->value);
	out_ku64(w, "dom", etable_index(t, x->dom));
	out_ku64(w, "addr", etable_index(t, x->addr));
	out_ku64(w, "val", etable_index(t, x->val));
	out_kstr(w, "type", etype_name(x->et));
	if (x->op != SA_NONE) {
		out_kstr(w, "op", sym_atom_name((enum sym_atom_op)x->op));
		if (x->cmp)
			out_ku64(w, "cmp", etable_index(t, x->cmp));
	}
	out_ku64(w, "seq", x->seq);
	if (x->epoch)
		out_ku64(w, "epoch", x->epoch);
	out_ku64(w, "line", x->line);
	if (x->src_line)
		out_ku64(w, "src_line", x->src_line);
	out_map_end(w);
}

/* One entry of "shared" or "shared_atomics". */
static void put_shwrite(struct stream_out *w, struct etable *t, const struct sym_shwrite *x)
{
	out_map_begin(w);
	out_ku64(w, "dom", etable_index(t, x->dom));
	out_ku64(w, "addr", etable_index(t, x->addr));
	out_ku64(w, "val", etable_index(t, x->val));
	out_kstr(w, "type", etype_name(x->et));
	if (x->op != SA_NONE) {
		out_kstr(w, "op", sym_atom_name((enum sym_atom_op)x->op));
		if (x->cmp)
			out_ku64(w, "cmp", etable_index(t, x->cmp));
	}
	out_ku64(w, "seq", x->seq);
	out_ku64(w, "epoch", x->epoch);
	out_ku64(w, "sub", x->sub);
	out_ku64(w, "line", x->line);
	if (x->src_line)
		out_ku64(w, "src_line", x->src_line);
	out_map_end(w);
}

/* One entry of "reads". */
static void put_gread(struct stream_out *w, const struct sym_gread *x)
{
	out_map_begin(w);
	out_ku64(w, "value", x->value);
	out_ku64(w, "epoch", x->epoch);
	out_ku64(w, "seq", x->seq);
	out_ku64(w, "line", x->line);
	if (x->src_line)
		out_ku64(w, "src_line", x->src_line);
	out_map_end(w);
}

static void add_write(struct etable *t, const struct sym_write *x)
{
	etable_add(t, x->dom);
	etable_add(t, x->addr);
	etable_add(t, x->val);
	if (x->cmp)
		etable_add(t, x->cmp);
}

static void add_shwrite(struct etable *t, const struct sym_shwrite *x)
{
	etable_add(t, x->dom);
	etable_add(t, x->addr);
	etable_add(t, x->val);
	if (x->cmp)
		etable_add(t, x->cmp);
}

void sym_write_writes(struct stream_out *w, const struct sym_writes *r)
{
	struct etable *t = etable_new();
	uint32_t natom = r->natomics, nshatom = r->nshatomics;
	for (uint32_t i = 0; i < r->nwrites; i++) {
		add_write(t, &r->writes[i]);
		natom += r->writes[i].op != SA_NONE;
	}
	for (uint32_t i = 0; i < r->natomics; i++)
		add_write(t, &r->atomics[i]);
	for (uint32_t i = 0; i < r->nshared; i++) {
		add_shwrite(t, &r->shared[i]);
		nshatom += r->shared[i].op != SA_NONE;
	}
	for (uint32_t i = 0; i < r->nshatomics; i++)
		add_shwrite(t, &r->shatomics[i]);
	out_begin(w, "writes");
	out_ku64(w, "launch", r->launch);
	out_ku64(w, "prog", r->prog);
	out_kstr(w, "kernel", r->kernel);
	out_ku64(w, "bundles", r->bundles);
	out_kf64(w, "ms", r->ms);
	out_key(w, "exprs");
	exprs_write(w, t);
	out_key(w, "writes");
	out_array_begin(w);
	for (uint32_t i = 0; i < r->nwrites; i++)
		if (r->writes[i].op == SA_NONE)
			put_write(w, t, &r->writes[i]);
	out_array_end(w);
	if (natom) {
		out_key(w, "atomics");
		out_array_begin(w);
		for (uint32_t i = 0; i < r->nwrites; i++)
			if (r->writes[i].op != SA_NONE)
				put_write(w, t, &r->writes[i]);
		for (uint32_t i = 0; i < r->natomics; i++)
			put_write(w, t, &r->atomics[i]);
		out_array_end(w);
	}
	if (r->nshared || r->shared_bytes || r->nshatomics) {
		out_ku64(w, "shared_bytes", r->shared_bytes);
		out_key(w, "shared");
		out_array_begin(w);
		for (uint32_t i = 0; i < r->nshared; i++)
			if (r->shared[i].op == SA_NONE)
				put_shwrite(w, t, &r->shared[i]);
		out_array_end(w);
	}
	if (r->nopaques) {
		out_key(w, "opaques");
		out_array_begin(w);
		for (uint32_t i = 0; i < r->nopaques; i++) {
			const struct sym_opaque *o = &r->opaques[i];
			out_map_begin(w);
			if (o->line)
				out_ku64(w, "line", o->line);
			if (o->src_file)
				out_kstr(w, "src_file", o->src_file);
			if (o->src_line)
				out_ku64(w, "src_line", o->src_line);
			out_kstr(w, "instr", o->instr ? o->instr : "");
			out_kstr(w, "what", o->what ? o->what : "");
			out_map_end(w);
		}
		out_array_end(w);
	}
	if (r->nreads) {
		out_key(w, "reads");
		out_array_begin(w);
		for (uint32_t i = 0; i < r->nreads; i++)
			put_gread(w, &r->reads[i]);
		out_array_end(w);
	}
	if (nshatom) {
		out_key(w, "shared_atomics");
		out_array_begin(w);
		for (uint32_t i = 0; i < r->nshared; i++)
			if (r->shared[i].op != SA_NONE)
				put_shwrite(w, t, &r->shared[i]);
		for (uint32_t i = 0; i < r->nshatomics; i++)
			put_shwrite(w, t, &r->shatomics[i]);
		out_array_end(w);
	}
	out_end(w);
	etable_free(t);
}

void sym_write_finding(struct stream_out *w, const struct sym_finding *r)
{
	out_begin(w, "finding");
	out_kstr(w, "class", r->cls);
	out_ku64(w, "prog", r->prog);
	out_ku64(w, "launch", r->launch);
	out_kstr(w, "kernel", r->kernel);
	if (r->line)
		out_ku64(w, "line", r->line);
	if (r->src_file)
		out_kstr(w, "src_file", r->src_file);
	if (r->src_line)
		out_ku64(w, "src_line", r->src_line);
	if (r->has_thread) {
		uint64_t t[3] = { r->tid[0], r->tid[1], r->tid[2] };
		uint64_t c[3] = { r->ctaid[0], r->ctaid[1], r->ctaid[2] };
		out_ku64x3(w, "tid", t);
		out_ku64x3(w, "ctaid", c);
	}
	if (r->has_thread2) {
		uint64_t t[3] = { r->tid2[0], r->tid2[1], r->tid2[2] };
		uint64_t c[3] = { r->ctaid2[0], r->ctaid2[1], r->ctaid2[2] };
		out_ku64x3(w, "tid2", t);
		out_ku64x3(w, "ctaid2", c);
	}
	if (r->has_addr) {
		if (r->value != NO_VALUE)
			out_ku64(w, "value", r->value);
		out_ki64(w, "off", r->off);
	}
	out_kstr(w, "message", r->message);
	out_end(w);
}

void sym_write_unsupported(struct stream_out *w, const struct sym_unsupported *r)
{
	out_begin(w, "unsupported");
	out_ku64(w, "prog", r->prog);
	out_ku64(w, "launch", r->launch);
	out_kstr(w, "kernel", r->kernel);
	if (r->line)
		out_ku64(w, "line", r->line);
	out_kstr(w, "what", r->what);
	out_kstr(w, "message", r->message);
	out_end(w);
}

static bool idx_of(const msgpack_object *m, const char *key, uint32_t n, uint32_t *out)
{
	uint64_t v;
	if (!obj_u64(obj_get(m, key), &v) || v >= n)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* The "op" and "cmp" of an entry of "atomics" or "shared_atomics"
 * (atomic) or of "writes" or "shared" (neither may be there). */
static bool read_op(const msgpack_object *m, bool atomic, const struct expr **nodes, uint32_t ne,
                    uint8_t *op, const struct expr **cmp)
{
	const msgpack_object *o = obj_get(m, "op");
	char name[16] = "";
	*op = SA_NONE;
	*cmp = NULL;
	if (!atomic)
		return !o && !obj_get(m, "cmp");
	if (!o || o->type != MSGPACK_OBJECT_STR || o->via.str.size >= sizeof name)
		return false;
	memcpy(name, o->via.str.ptr, o->via.str.size);
	if ((*op = (uint8_t)sym_atom_parse(name)) == SA_NONE)
		return false;
	uint32_t c;
	if (obj_get(m, "cmp")) {
		if (!idx_of(m, "cmp", ne, &c))
			return false;
		*cmp = nodes[c];
	}
	return (*op == SA_CAS) == (*cmp != NULL);
}

/* The fields a global and a shared store share: dom, addr, val, type, op
 * and cmp (atomics), seq, line, src_line, with the sorts checked.  False
 * when one is missing or malformed (*sorts tells a sort mismatch). */
struct store_fields {
	const struct expr *dom, *addr, *val, *cmp;
	enum etype et;
	uint8_t op;
	uint64_t seq, line, src_line;
};

static bool read_store(const msgpack_object *m, bool atomic, const struct expr **nodes, uint32_t ne,
                       struct store_fields *f, bool *sorts)
{
	uint32_t d, ad, v;
	const msgpack_object *ty = obj_get(m, "type");
	char tname[16] = "";
	*sorts = false;
	memset(f, 0, sizeof *f);
	if (ty && ty->type == MSGPACK_OBJECT_STR && ty->via.str.size < sizeof tname)
		memcpy(tname, ty->via.str.ptr, ty->via.str.size);
	if (!idx_of(m, "dom", ne, &d) || !idx_of(m, "addr", ne, &ad) || !idx_of(m, "val", ne, &v) ||
	    (f->et = etype_parse(tname)) == ET_NONE || !read_op(m, atomic, nodes, ne, &f->op, &f->cmp))
		return false;
	obj_u64(obj_get(m, "seq"), &f->seq);
	obj_u64(obj_get(m, "line"), &f->line);
	obj_u64(obj_get(m, "src_line"), &f->src_line);
	f->dom = nodes[d];
	f->addr = nodes[ad];
	f->val = nodes[v];
	if (SORT_KIND(f->dom->sort) != SK_BOOL || f->addr->sort != SORT_BV(64) ||
	    f->val->sort != etype_sort(f->et) || (f->cmp && f->cmp->sort != f->val->sort)) {
		*sorts = true;
		return false;
	}
	return true;
}

/* The optional array of stores under key: NULL and *n = 0 when absent;
 * false after a message when it is not an array. */
static bool store_array(const struct record *rec, const char *key, const msgpack_object **arr,
                        uint32_t *n)
{
	const msgpack_object *o = rec_get(rec, key);
	*arr = NULL;
	*n = 0;
	if (!o)
		return true;
	if (o->type != MSGPACK_OBJECT_ARRAY) {
		rec_error(rec, "field '%s' is not an array", key);
		return false;
	}
	*arr = o->via.array.ptr;
	*n = o->via.array.size;
	return true;
}

/* The shared stores ("shared", or "shared_atomics" when atomic). */
static bool read_shared(const struct record *rec, const char *key, bool atomic,
                        const struct expr **nodes, uint32_t ne, struct arena *a,
                        struct sym_shwrite **out, uint32_t *nout)
{
	const msgpack_object *arr;
	uint32_t n;
	*out = NULL;
	*nout = 0;
	if (!store_array(rec, key, &arr, &n))
		return false;
	if (!arr)
		return true;
	*out = ARENA_NEWN(a, struct sym_shwrite, n ? n : 1);
	*nout = n;
	for (uint32_t i = 0; i < n; i++) {
		const msgpack_object *m = &arr[i];
		struct sym_shwrite *x = &(*out)[i];
		struct store_fields f;
		bool sorts;
		uint64_t ep = 0, sub = 0;
		if (!read_store(m, atomic, nodes, ne, &f, &sorts) || !obj_u64(obj_get(m, "epoch"), &ep) ||
		    ep >= SYM_SH_EPOCH_MAX) {
			if (sorts)
				rec_error(rec, "%s entry %u: expressions of the wrong sort", key, i);
			else
				rec_error(rec, "%s entry %u is malformed (dom, addr, val, type, epoch%s)", key, i,
				          atomic ? ", op, cmp" : "");
			return false;
		}
		obj_u64(obj_get(m, "sub"), &sub);
		if (sub >> SYM_SH_SUB_BITS) {
			rec_error(rec, "%s entry %u: warp epoch %llu too large", key, i, (unsigned long long)sub);
			return false;
		}
		*x = (struct sym_shwrite){ f.dom, f.addr, f.val, f.et, (uint32_t)f.seq, (uint32_t)ep,
		                           (uint32_t)sub, (uint32_t)f.line, (uint32_t)f.src_line, f.op, f.cmp };
	}
	return true;
}

/* The global writes ("writes", or "atomics" when atomic). */
static bool read_wlist(const struct record *rec, const char *key, bool atomic,
                       const struct expr **nodes, uint32_t ne, struct arena *a,
                       struct sym_write **out, uint32_t *nout)
{
	const msgpack_object *arr;
	uint32_t nw;
	*out = NULL;
	*nout = 0;
	if (!store_array(rec, key, &arr, &nw))
		return false;
	if (!arr)
		return true;
	*out = ARENA_NEWN(a, struct sym_write, nw ? nw : 1);
	*nout = nw;
	for (uint32_t i = 0; i < nw; i++) {
		const msgpack_object *m = &arr[i];
		struct sym_write *x = &(*out)[i];
		struct store_fields f;
		bool sorts;
		uint64_t value, ep = 0;
		const msgpack_object *epo = obj_get(m, "epoch");
		if (!read_store(m, atomic, nodes, ne, &f, &sorts) ||
		    !obj_u64(obj_get(m, "value"), &value) || value > UINT32_MAX ||
		    (epo && (!obj_u64(epo, &ep) || ep >= SYM_SH_EPOCH_MAX))) {
			if (sorts)
				rec_error(rec, "%s %u: expressions of the wrong sort", atomic ? "atomic" : "write", i);
			else if (atomic)
				rec_error(rec, "atomic %u is malformed (value, dom, addr, val, type, op, cmp, epoch)", i);
			else
				rec_error(rec, "write %u is malformed (value, dom, addr, val, type, epoch)", i);
			return false;
		}
		x->value = (uint32_t)value;
		x->dom = f.dom;
		x->addr = f.addr;
		x->val = f.val;
		x->et = f.et;
		x->op = f.op;
		x->cmp = f.cmp;
		x->seq = (uint32_t)f.seq;
		x->line = (uint32_t)f.line;
		x->src_line = (uint32_t)f.src_line;
		x->epoch = (uint32_t)ep;
	}
	return true;
}

const struct sym_opaque *sym_opaque_of(const struct sym_writes *r, const struct expr *e)
{
	if (!e || e->op != EOP_OPAQUE)
		return NULL;
	uint64_t tag = EOPQ_TAGOF(e->u);
	if (!tag || SYM_OPAQUE_IS_STORE(tag) || SYM_OPAQUE_LAUNCH(tag) != r->launch ||
	    SYM_OPAQUE_INDEX(tag) >= r->nopaques)
		return NULL;
	return &r->opaques[SYM_OPAQUE_INDEX(tag)];
}

static const char *str_of(const msgpack_object *o, struct arena *a)
{
	if (!o || o->type != MSGPACK_OBJECT_STR || memchr(o->via.str.ptr, 0, o->via.str.size))
		return NULL;
	char *s = arena_alloc(a, o->via.str.size + 1);
	memcpy(s, o->via.str.ptr, o->via.str.size);
	s[o->via.str.size] = 0;
	return s;
}

/* "opaques", and every opaque node of the table naming an entry of it
 * (functions must; reinterpretations may have tag 0). */
static bool read_opaques(const struct record *rec, struct sym_writes *r, const struct expr **nodes,
                         uint32_t ne, struct arena *a)
{
	const msgpack_object *arr;
	uint32_t n;
	if (!store_array(rec, "opaques", &arr, &n))
		return false;
	r->opaques = ARENA_NEWN(a, struct sym_opaque, n ? n : 1);
	r->nopaques = n;
	for (uint32_t i = 0; i < n; i++) {
		const msgpack_object *m = &arr[i];
		struct sym_opaque *o = &r->opaques[i];
		uint64_t line = 0, sl = 0;
		if (m->type != MSGPACK_OBJECT_MAP || !(o->instr = str_of(obj_get(m, "instr"), a)) ||
		    !(o->what = str_of(obj_get(m, "what"), a)) ||
		    (obj_get(m, "line") && (!obj_u64(obj_get(m, "line"), &line) || line > UINT32_MAX)) ||
		    (obj_get(m, "src_line") && (!obj_u64(obj_get(m, "src_line"), &sl) || sl > UINT32_MAX))) {
			rec_error(rec, "opaques entry %u is malformed (instr, what, line, src_file, src_line)", i);
			return false;
		}
		o->line = (uint32_t)line;
		o->src_line = (uint32_t)sl;
		o->src_file = str_of(obj_get(m, "src_file"), a);
	}
	for (uint32_t i = 0; i < ne; i++) {
		const struct expr *e = nodes[i];
		if (e->op != EOP_OPAQUE || (!EOPQ_TAGOF(e->u) && EOPQ_KIND(e->u) != EOPQ_FN))
			continue;
		if (!sym_opaque_of(r, e)) {
			rec_error(rec, "exprs: expression %u: opaque tag %llu names no entry of this launch's "
			          "opaques", i, (unsigned long long)EOPQ_TAGOF(e->u));
			return false;
		}
	}
	return true;
}

/* The global reads ("reads"). */
static bool read_greads(const struct record *rec, struct arena *a, struct sym_gread **out, uint32_t *nout)
{
	const msgpack_object *arr;
	uint32_t n;
	*out = NULL;
	*nout = 0;
	if (!store_array(rec, "reads", &arr, &n))
		return false;
	if (!arr)
		return true;
	if (n > SYM_GR_MAX) {
		rec_error(rec, "%u reads, more than %u", n, SYM_GR_MAX);
		return false;
	}
	*out = ARENA_NEWN(a, struct sym_gread, n ? n : 1);
	*nout = n;
	for (uint32_t i = 0; i < n; i++) {
		const msgpack_object *m = &arr[i];
		uint64_t value, ep, seq, line = 0, src_line = 0;
		const msgpack_object *sl = obj_get(m, "src_line");
		if (m->type != MSGPACK_OBJECT_MAP || !obj_u64(obj_get(m, "value"), &value) || value > UINT32_MAX ||
		    !obj_u64(obj_get(m, "epoch"), &ep) || ep >= SYM_SH_EPOCH_MAX ||
		    !obj_u64(obj_get(m, "seq"), &seq) || seq > UINT32_MAX ||
		    !obj_u64(obj_get(m, "line"), &line) || line > UINT32_MAX ||
		    (sl && (!obj_u64(sl, &src_line) || src_line > UINT32_MAX))) {
			rec_error(rec, "read %u is malformed (value, epoch, seq, line)", i);
			return false;
		}
		(*out)[i] = (struct sym_gread){ (uint32_t)value, (uint32_t)ep, (uint32_t)seq, (uint32_t)line,
		                                (uint32_t)src_line };
	}
	return true;
}

bool sym_read_writes(const struct record *rec, struct ectx *cx, struct arena *a, struct sym_writes *r)
{
	bool ok = true;
	memset(r, 0, sizeof *r);
	r->launch = (uint32_t)rec_u64(rec, "launch", &ok);
	r->prog = (uint32_t)rec_u64(rec, "prog", &ok);
	r->kernel = rec_str(rec, "kernel", a, &ok);
	r->bundles = (uint32_t)rec_u64_opt(rec, "bundles", 0, &ok);
	r->shared_bytes = rec_u64_opt(rec, "shared_bytes", 0, &ok);
	const msgpack_object *ms = rec_get(rec, "ms");
	if (ms)
		obj_f64(ms, &r->ms);
	const msgpack_object *ex = rec_get(rec, "exprs");
	uint32_t nw;
	rec_array(rec, "writes", &nw, &ok);
	if (!ok)
		return false;
	if (!ex) {
		rec_error(rec, "field 'exprs' missing");
		return false;
	}
	char err[256];
	uint32_t ne;
	const struct expr **nodes = exprs_read(cx, ex, a, &ne, err, sizeof err);
	if (!nodes) {
		rec_error(rec, "exprs: %s", err);
		return false;
	}
	return read_opaques(rec, r, nodes, ne, a) &&
	       read_wlist(rec, "writes", false, nodes, ne, a, &r->writes, &r->nwrites) &&
	       read_wlist(rec, "atomics", true, nodes, ne, a, &r->atomics, &r->natomics) &&
	       read_shared(rec, "shared", false, nodes, ne, a, &r->shared, &r->nshared) &&
	       read_shared(rec, "shared_atomics", true, nodes, ne, a, &r->shatomics, &r->nshatomics) &&
	       read_greads(rec, a, &r->reads, &r->nreads);
}

bool sym_read_finding(const struct record *rec, struct arena *a, struct sym_finding *r)
{
	bool ok = true;
	memset(r, 0, sizeof *r);
	r->cls = rec_str(rec, "class", a, &ok);
	r->prog = (uint32_t)rec_u64(rec, "prog", &ok);
	r->launch = (uint32_t)rec_u64(rec, "launch", &ok);
	r->kernel = rec_str(rec, "kernel", a, &ok);
	r->line = (uint32_t)rec_u64_opt(rec, "line", 0, &ok);
	r->src_file = rec_str_opt(rec, "src_file", a, &ok);
	r->src_line = (uint32_t)rec_u64_opt(rec, "src_line", 0, &ok);
	r->message = rec_str(rec, "message", a, &ok);
	r->value = (uint32_t)rec_u64_opt(rec, "value", NO_VALUE, &ok);
	const msgpack_object *off = rec_get(rec, "off");
	if (off && obj_i64(off, &r->off))
		r->has_addr = true;
	const msgpack_object *tid = rec_get(rec, "tid"), *ct = rec_get(rec, "ctaid");
	if (tid && ct && tid->type == MSGPACK_OBJECT_ARRAY && ct->type == MSGPACK_OBJECT_ARRAY &&
	    tid->via.array.size == 3 && ct->via.array.size == 3) {
		r->has_thread = true;
		for (int i = 0; i < 3; i++) {
			uint64_t x = 0, y = 0;
			if (!obj_u64(&tid->via.array.ptr[i], &x) || !obj_u64(&ct->via.array.ptr[i], &y))
				r->has_thread = false;
			r->tid[i] = (uint32_t)x;
			r->ctaid[i] = (uint32_t)y;
		}
	}
	const msgpack_object *t2 = rec_get(rec, "tid2"), *c2 = rec_get(rec, "ctaid2");
	if (t2 && c2 && t2->type == MSGPACK_OBJECT_ARRAY && c2->type == MSGPACK_OBJECT_ARRAY &&
	    t2->via.array.size == 3 && c2->via.array.size == 3) {
		r->has_thread2 = true;
		for (int i = 0; i < 3; i++) {
			uint64_t x = 0, y = 0;
			if (!obj_u64(&t2->via.array.ptr[i], &x) || !obj_u64(&c2->via.array.ptr[i], &y))
				r->has_thread2 = false;
			r->tid2[i] = (uint32_t)x;
			r->ctaid2[i] = (uint32_t)y;
		}
	}
	return ok;
}

void sym_write_timeout(struct stream_out *w, const struct sym_timeout *r)
{
	out_begin(w, "timeout");
	out_ku64(w, "prog", r->prog);
	out_ku64(w, "launch", r->launch);
	out_kstr(w, "kernel", r->kernel);
	if (r->line)
		out_ku64(w, "line", r->line);
	out_kstr(w, "doing", r->doing);
	out_kstr(w, "message", r->message);
	out_end(w);
}

bool sym_read_timeout(const struct record *rec, struct arena *a, struct sym_timeout *r)
{
	bool ok = true;
	memset(r, 0, sizeof *r);
	uint64_t prog = rec_u64(rec, "prog", &ok), launch = rec_u64(rec, "launch", &ok);
	r->kernel = rec_str(rec, "kernel", a, &ok);
	uint64_t line = rec_u64_opt(rec, "line", 0, &ok);
	r->doing = rec_str(rec, "doing", a, &ok);
	r->message = rec_str(rec, "message", a, &ok);
	if (ok && (prog > 1 || launch >= UINT32_MAX || line > UINT32_MAX)) {
		rec_error(rec, "field 'prog', 'launch' or 'line' out of range");
		ok = false;
	}
	r->prog = (uint32_t)prog;
	r->launch = (uint32_t)launch;
	r->line = (uint32_t)line;
	return ok;
}

bool sym_read_unsupported(const struct record *rec, struct arena *a, struct sym_unsupported *r)
{
	bool ok = true;
	memset(r, 0, sizeof *r);
	r->prog = (uint32_t)rec_u64(rec, "prog", &ok);
	r->launch = (uint32_t)rec_u64(rec, "launch", &ok);
	r->kernel = rec_str(rec, "kernel", a, &ok);
	r->line = (uint32_t)rec_u64_opt(rec, "line", 0, &ok);
	r->what = rec_str(rec, "what", a, &ok);
	r->message = rec_str(rec, "message", a, &ok);
	return ok;
}

/* ---- relocation (dexec --cache) ------------------------------------------------ */

static bool reloc_value(const struct sym_reloc *m, uint64_t v, uint64_t *out)
{
	for (uint32_t i = 0; i < m->n; i++)
		if (m->from[i] == v) {
			*out = m->to[i];
			return true;
		}
	return false;
}

/* An unsigned integer of o, mapped by fn (or kept: fn NULL); false when o
 * is not one or fn refuses it.  Writes it to w unless w is NULL. */
static bool reloc_uint(struct stream_out *w, const msgpack_object *o, const struct sym_reloc *m,
                       bool (*fn)(const struct sym_reloc *, uint64_t, uint64_t *))
{
	uint64_t v;
	if (!obj_u64(o, &v))
		return false;
	if (fn && !fn(m, v, &v))
		return false;
	if (w)
		out_u64(w, v);
	return true;
}

static bool reloc_launch(const struct sym_reloc *m, uint64_t v, uint64_t *out)
{
	if (v != m->from_launch)
		return false;
	*out = m->launch;
	return true;
}

static bool reloc_prog(const struct sym_reloc *m, uint64_t v, uint64_t *out)
{
	(void)v;
	*out = m->prog;
	return true;
}

/* A node of an expression table: the value ids of load, elem and base
 * variable nodes, and the launch of shared loads. */
static bool reloc_node(struct stream_out *w, const msgpack_object *n, const struct sym_reloc *m)
{
	if (n->type != MSGPACK_OBJECT_ARRAY || n->via.array.size < 3)
		return false;
	const msgpack_object *a = n->via.array.ptr;
	bool load = obj_is_str(&a[0], "load"), elem = obj_is_str(&a[0], "elem");
	bool var = obj_is_str(&a[0], "var"), opaque = obj_is_str(&a[0], "opaque");
	if (w)
		out_array_begin(w);
	for (uint32_t i = 0; i < n->via.array.size; i++) {
		if (i == 2 && (load || elem)) {
			uint64_t s;
			if (!obj_u64(&a[2], &s) || s > UINT32_MAX)
				return false;
			if (SYM_IS_SHARED_SPACE((uint32_t)s)) {
				if (!load || SYM_SHARED_LAUNCH((uint32_t)s) != m->from_launch)
					return false;
				s = SYM_SHARED_SPACE(m->launch);
			} else if (!reloc_value(m, s, &s)) {
				return false;
			}
			if (w)
				out_u64(w, s);
		} else if (i == 2 && opaque) {
			/* a tag names the launch whose table holds its origin */
			uint64_t tag;
			if (!obj_u64(&a[2], &tag) || tag > EOPQ_TAG_MASK)
				return false;
			if (tag) {
				if (SYM_OPAQUE_IS_STORE(tag) || SYM_OPAQUE_LAUNCH(tag) != m->from_launch)
					return false;
				tag = SYM_OPAQUE_TAG(m->launch, SYM_OPAQUE_INDEX(tag));
				if (tag > EOPQ_TAG_MASK)
					return false;
			}
			if (w)
				out_u64(w, tag);
		} else if (i == 2 && var) {
			uint64_t id;
			if (!obj_u64(&a[2], &id))
				return false;
			if (EVAR_IS_BASE(id)) {
				uint64_t v;
				if (!reloc_value(m, EVAR_BASE_VALUE(id), &v))
					return false;
				id = EVAR_BASE(v);
			}
			if (w)
				out_u64(w, id);
		} else if (w) {
			out_obj(w, &a[i]);
		}
	}
	if (w)
		out_array_end(w);
	return true;
}

/* An array of maps whose "value" fields are value ids (writes, atomics). */
static bool reloc_entries(struct stream_out *w, const msgpack_object *arr, const struct sym_reloc *m)
{
	if (arr->type != MSGPACK_OBJECT_ARRAY)
		return false;
	if (w)
		out_array_begin(w);
	for (uint32_t i = 0; i < arr->via.array.size; i++) {
		const msgpack_object *e = &arr->via.array.ptr[i];
		if (e->type != MSGPACK_OBJECT_MAP)
			return false;
		if (w)
			out_map_begin(w);
		for (uint32_t k = 0; k < e->via.map.size; k++) {
			const msgpack_object_kv *kv = &e->via.map.ptr[k];
			if (w)
				out_obj(w, &kv->key);
			if (obj_is_str(&kv->key, "value")) {
				if (!reloc_uint(w, &kv->val, m, reloc_value))
					return false;
			} else if (w) {
				out_obj(w, &kv->val);
			}
		}
		if (w)
			out_map_end(w);
	}
	if (w)
		out_array_end(w);
	return true;
}

/* One pass over rec: checks it (w NULL) or writes it relocated. */
static bool reloc_pass(struct stream_out *w, const struct record *rec, const struct sym_reloc *m)
{
	bool writes = strcmp(rec->type, "writes") == 0, finding = strcmp(rec->type, "finding") == 0;
	if (!writes && !finding && strcmp(rec->type, "unsupported") != 0)
		return false;
	const msgpack_object *o = rec->obj;
	if (w)
		out_begin(w, rec->type);
	for (uint32_t k = 0; k < o->via.map.size; k++) {
		const msgpack_object_kv *kv = &o->via.map.ptr[k];
		const msgpack_object *key = &kv->key, *val = &kv->val;
		if (obj_is_str(key, "t"))
			continue;
		if (w)
			out_obj(w, key);
		bool ok = true;
		if (obj_is_str(key, "launch"))
			ok = reloc_uint(w, val, m, reloc_launch);
		else if (obj_is_str(key, "prog"))
			ok = reloc_uint(w, val, m, reloc_prog);
		else if (finding && obj_is_str(key, "value"))
			ok = reloc_uint(w, val, m, reloc_value);
		else if (writes && obj_is_str(key, "exprs")) {
			ok = val->type == MSGPACK_OBJECT_ARRAY;
			if (ok && w)
				out_array_begin(w);
			for (uint32_t i = 0; ok && i < val->via.array.size; i++)
				ok = reloc_node(w, &val->via.array.ptr[i], m);
			if (ok && w)
				out_array_end(w);
		} else if (writes && (obj_is_str(key, "writes") || obj_is_str(key, "atomics")))
			ok = reloc_entries(w, val, m);
		else if (w)
			out_obj(w, val);
		if (!ok)
			return false;
	}
	if (w)
		out_end(w);
	return true;
}

bool sym_relocate(struct stream_out *w, const struct record *rec, const struct sym_reloc *m)
{
	if (!reloc_pass(NULL, rec, m))
		return false;
	if (w)
		reloc_pass(w, rec, m);
	return true;
}
