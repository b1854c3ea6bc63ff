/*
 * cache.c: dexec --cache DIR, the records of each launch kept under a key
 * of everything its symbolic execution depends on (dexec(1)):
 *
 *   the dexec build (a hash of the executable) and the options that change
 *   results; the PTX of the module (length and two 64-bit hashes); the
 *   kernel; whether the module's __device__ variables still hold their
 *   initialisers (no earlier launch of the module was unsupported or cut
 *   short, dx_opts.module_unclean); grid, block and dynamic shared
 *   memory; per argument its parameter name, size, and either its bytes
 *   (scalars) or, for pointers, the offset, the size of the buffer,
 *   whether its bytes come from the host (dx_value_from_host) and which of
 *   the launch's values it names (by order of first appearance, so
 *   aliasing is part of the key but value ids are not); per module symbol
 *   the same, and those of its bytes that are constants (reads of
 *   __constant__ memory are folded to them: mem.c); per pointer to a
 *   program input of an integer element type whose bytes the trace kept,
 *   a hash of those bytes (integer reads of it are folded to them: mem.c).
 *
 * An entry is a small stream file DIR/HASH.sym: a "cache" record with the
 * whole key (checked on a hit, so a hash collision is a miss) and the ids
 * the launch had, the launch's records as dexec wrote them, and a
 * "cache_end" record with their count, then the stream's end record.  A
 * hit writes the records relocated to this stream's ids (formats/symbolic.c, sym_relocate): the
 * same bytes dexec would write.  Entries are written to a temporary file
 * and renamed into place, so concurrent dexecs sharing DIR never see a
 * partial one.  Only complete results are kept: not a launch the budget
 * stopped (a "timeout"), nor one unsupported because the solver gave up.
 * The budget itself is not part of the key, since a complete result does
 * not depend on it.
 */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libcommon/diag.h"

#define CACHE_FORMAT 1

struct dx_cache {
	char *dir;
	uint64_t build[2];           /* hashes of the executable */
	struct dx_opts opts;
	uint64_t hits, misses, stored;
};

struct dx_entry {
	char *tmp, *path;
	FILE *f;
	struct stream_out *out;
	uint64_t records;
	bool keep;
};

/* A heap string, printf-style. */
static char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = xmalloc((size_t)(n > 0 ? n : 0) + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)(n > 0 ? n : 0) + 1, fmt, ap);
	va_end(ap);
	return s;
}

/* ---- hashing (FNV-1a, two bases) ------------------------------------------------- */

static void hash2(const void *p, size_t n, uint64_t h[2])
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++) {
		h[0] = (h[0] ^ s[i]) * 0x100000001b3ull;
		h[1] = (h[1] ^ s[i]) * 0x00000100000001b3ull + 0x9e3779b97f4a7c15ull;
	}
}

static void hash_init(uint64_t h[2])
{
	h[0] = 0xcbf29ce484222325ull;
	h[1] = 0x84222325cbf29ce4ull;
}

/* The executable's bytes hashed: its build id. */
static void build_id(uint64_t h[2])
{
	hash_init(h);
	FILE *f = fopen("/proc/self/exe", "rb");
	if (!f) {
		const char *when = __DATE__ " " __TIME__;
		hash2(when, strlen(when), h);
		return;
	}
	unsigned char buf[1 << 16];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		hash2(buf, n, h);
	fclose(f);
}

/* ---- the key ----------------------------------------------------------------- */

struct key {
	char *s;
	size_t len, cap;
	VEC(uint32_t) ids;           /* the launch's value ids, by slot */
};

static void kput(struct key *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void kput(struct key *k, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(k->s + k->len, k->cap - k->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < k->cap - k->len) {
			k->len += (size_t)n;
			return;
		}
		k->cap = k->cap * 2 + (n > 0 ? (size_t)n : 0) + 256;
		k->s = xrealloc(k->s, k->cap);
	}
}

static uint32_t slot(struct key *k, uint32_t v)
{
	for (size_t i = 0; i < k->ids.len; i++)
		if (k->ids.items[i] == v)
			return (uint32_t)i;
	VEC_PUSH(k->ids, v);
	return (uint32_t)k->ids.len - 1;
}

static void make_key(const struct dx_cache *c, const struct obligation *o, uint32_t i, bool init,
                     struct key *k)
{
	memset(k, 0, sizeof *k);
	const struct obl_launch *l = &o->launches.items[i];
	const struct obl_module *m = &o->modules.items[l->module];
	uint64_t ph[2];
	hash_init(ph);
	hash2(m->ptx, m->ptxlen, ph);
	kput(k, "dirigo dexec cache %d\nbuild %016llx%016llx\n", CACHE_FORMAT,
	     (unsigned long long)c->build[0], (unsigned long long)c->build[1]);
	kput(k, "opts %llu %u %u %llu %d\n", (unsigned long long)c->opts.budget_steps,
	     c->opts.max_bundles, c->opts.smt_timeout_ms, (unsigned long long)c->opts.smt_rlimit,
	     c->opts.timing);
	kput(k, "ptx %zu %016llx%016llx\nkernel %s\ninit %d\n", m->ptxlen, (unsigned long long)ph[0],
	     (unsigned long long)ph[1], l->kernel, init);
	kput(k, "grid %llu %llu %llu block %llu %llu %llu shmem %llu\n",
	     (unsigned long long)l->grid[0], (unsigned long long)l->grid[1], (unsigned long long)l->grid[2],
	     (unsigned long long)l->block[0], (unsigned long long)l->block[1], (unsigned long long)l->block[2],
	     (unsigned long long)l->shmem);
	for (uint32_t a = 0; a < l->nargs; a++) {
		const struct obl_arg *g = &l->args[a];
		kput(k, "arg %u %s %u", a, g->param ? g->param : "", g->size);
		if (g->is_ptr) {
			uint32_t si = slot(k, g->vin), so = slot(k, g->vout);
			kput(k, " ptr %u %u %llu %llu %d", si, so, (unsigned long long)g->off,
			     (unsigned long long)o->values.items[g->vin].bytes, dx_value_from_host(o, g->vin));
			/* an input's recorded bytes, which integer reads are folded to (mem.c) */
			const struct obl_value *v = &o->values.items[g->vin];
			const struct obl_input *in = v->def == VD_INPUT && v->input < o->inputs.len
			                             ? &o->inputs.items[v->input] : NULL;
			if (in && in->data && in->dtype != ET_NONE && !etype_is_float(in->dtype)) {
				uint64_t h[2];
				hash_init(h);
				hash2(in->data, in->ndata, h);
				kput(k, " data %016llx%016llx", (unsigned long long)h[0], (unsigned long long)h[1]);
			}
			kput(k, "\n");
			continue;
		}
		kput(k, " val ");
		const unsigned char *raw = g->raw;
		for (uint32_t b = 0; raw && b < g->size; b++)
			kput(k, "%02x", raw[b]);
		kput(k, "\n");
	}
	for (uint32_t s = 0; s < l->nsyms; s++) {
		const struct obl_symref *y = &l->syms[s];
		uint32_t sl = slot(k, y->vin);
		uint64_t bytes = o->values.items[y->vin].bytes;
		kput(k, "sym %s %u %llu %d", y->symbol, sl, (unsigned long long)bytes,
		     dx_value_from_host(o, y->vin));
		/* the bytes a read of it is folded to (mem.c), as far as known */
		for (uint64_t b = 0; b < bytes && b < (1u << 16); b++) {
			uint8_t c;
			if (dx_value_byte(o, y->vin, b, &c))
				kput(k, " %llu:%02x", (unsigned long long)b, c);
		}
		kput(k, "\n");
	}
}

static char *entry_path(const struct dx_cache *c, const struct key *k)
{
	uint64_t h[2];
	hash_init(h);
	hash2(k->s, k->len, h);
	return xprintf("%s/%016llx%016llx.sym", c->dir, (unsigned long long)h[0],
	               (unsigned long long)h[1]);
}

static void key_release(struct key *k)
{
	free(k->s);
	VEC_FREE(k->ids);
}

/* ---- open and close ------------------------------------------------------------- */

struct dx_cache *dx_cache_open(const char *dir, const struct dx_opts *opts)
{
	struct stat st;
	/* another dexec may make it between our stat and mkdir: then it is
	 * there (EEXIST), and stat again says what it is */
	bool made = false;
	if (stat(dir, &st) != 0 &&
	    !(made = errno == ENOENT && mkdir(dir, 0777) == 0) && !(errno == EEXIST && stat(dir, &st) == 0)) {
		warn("--cache: cannot use '%s': %s", dir, strerror(errno));
		return NULL;
	}
	if (!made && !S_ISDIR(st.st_mode)) {
		warn("--cache: '%s' is not a directory", dir);
		return NULL;
	}
	if (access(dir, W_OK | X_OK) != 0) {
		warn("--cache: cannot write to '%s': %s", dir, strerror(errno));
		return NULL;
	}
	struct dx_cache *c = xcalloc(1, sizeof *c);
	c->dir = xstrdup(dir);
	c->opts = *opts;
	build_id(c->build);
	return c;
}

void dx_cache_close(struct dx_cache *c)
{
	if (!c)
		return;
	note("cache %s: %llu hits, %llu misses, %llu entries stored", c->dir,
	     (unsigned long long)c->hits, (unsigned long long)c->misses, (unsigned long long)c->stored);
	free(c->dir);
	free(c);
}

/* ---- hits ---------------------------------------------------------------------- */

/* One pass over the entry at path: checks it (w NULL) or writes its
 * records relocated.  The number of records, or -1 when the entry is not
 * one for key k (or is damaged). */
static long long entry_pass(const char *path, const struct key *k, const struct obligation *o,
                            uint32_t i, struct stream_out *w, int *status, bool *unsup)
{
	const char *files[1] = { path };
	struct stream_in *in = stream_in_open(files, 1);
	struct record rec;
	struct arena a = ARENA_INIT;
	struct sym_reloc m = { i, o->launches.items[i].prog, 0, 0, NULL, k->ids.items };
	uint32_t *from = NULL;
	long long n = 0, want = -1;
	bool have_key = false, end = false, ok = true;
	int r;
	while (ok && (r = stream_in_next(in, &rec)) > 0) {
		if (strcmp(rec.type, "header") == 0 || strcmp(rec.type, "end") == 0)
			continue;            /* the reader checks the end record */
		if (end) {
			ok = false;
		} else if (strcmp(rec.type, "cache") == 0) {
			bool rok = true;
			const char *key = rec_str(&rec, "key", &a, &rok);
			size_t len = key ? strlen(key) : 0;
			uint64_t launch = rec_u64(&rec, "launch", &rok);
			uint32_t nv = 0;
			const msgpack_object *vals = rec_array(&rec, "values", &nv, &rok);
			ok = rok && !have_key && len == k->len && memcmp(key, k->s, len) == 0 &&
			     nv == k->ids.len && launch <= UINT32_MAX;
			from = xcalloc(nv + 1, sizeof *from);
			for (uint32_t j = 0; ok && j < nv; j++) {
				uint64_t v;
				ok = obj_u64(&vals[j], &v) && v <= UINT32_MAX;
				from[j] = (uint32_t)v;
			}
			m.from_launch = (uint32_t)launch;
			m.n = nv;
			m.from = from;
			have_key = true;
		} else if (strcmp(rec.type, "cache_end") == 0) {
			bool rok = true;
			want = (long long)rec_u64(&rec, "records", &rok);
			ok = rok && have_key;
			end = true;
		} else {
			ok = have_key && sym_relocate(w, &rec, &m);
			if (ok && strcmp(rec.type, "finding") == 0)
				*status = exit_worst(*status, EXIT_BUG);
			if (ok && strcmp(rec.type, "unsupported") == 0) {
				*status = exit_worst(*status, EXIT_UNDECIDED);
				*unsup = true;
			}
			n++;
		}
	}
	if (ok && r < 0)
		ok = false;
	stream_in_close(in);
	arena_release(&a);
	free(from);
	return ok && end && want == n ? n : -1;
}

bool dx_cache_get(struct dx_cache *c, const struct obligation *o, uint32_t i, bool init,
                  struct stream_out *w, int *status, bool *unsup)
{
	struct key k;
	make_key(c, o, i, init, &k);
	char *path = entry_path(c, &k);
	bool hit = false;
	if (access(path, R_OK) == 0) {
		int st = *status;
		bool u = false;
		if (entry_pass(path, &k, o, i, NULL, &st, &u) >= 0) {
			entry_pass(path, &k, o, i, w, status, unsup);
			hit = true;
		} else {
			warn("--cache: entry '%s' does not hold launch %u; executing it again", path, i);
		}
	}
	if (hit)
		c->hits++;
	else
		c->misses++;
	free(path);
	key_release(&k);
	return hit;
}

/* ---- storing ------------------------------------------------------------------- */

struct dx_entry *dx_cache_begin(struct dx_cache *c, const struct obligation *o, uint32_t i,
                                bool init)
{
	struct key k;
	make_key(c, o, i, init, &k);
	struct dx_entry *e = xcalloc(1, sizeof *e);
	e->path = entry_path(c, &k);
	e->tmp = xprintf("%s/.tmp-XXXXXX", c->dir);
	int fd = mkstemp(e->tmp);
	if (fd < 0 || !(e->f = fdopen(fd, "wb"))) {
		warn("--cache: cannot write an entry in '%s': %s", c->dir, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(e->tmp);
		}
		free(e->tmp);
		free(e->path);
		free(e);
		key_release(&k);
		return NULL;
	}
	e->out = stream_out_new(e->f);
	out_header(e->out, "symbolic", NULL);
	out_begin(e->out, "cache");
	out_kstr(e->out, "key", k.s);
	out_ku64(e->out, "launch", i);
	out_key(e->out, "values");
	out_array_begin(e->out);
	for (size_t j = 0; j < k.ids.len; j++)
		out_u64(e->out, k.ids.items[j]);
	out_array_end(e->out);
	out_end(e->out);
	e->keep = true;
	key_release(&k);
	return e;
}

struct stream_out *dx_entry_out(struct dx_entry *e)
{
	if (!e)
		return NULL;
	e->records++;
	return e->out;
}

void dx_entry_drop(struct dx_entry *e)
{
	if (e)
		e->keep = false;
}

void dx_cache_end(struct dx_cache *c, struct dx_entry *e)
{
	if (!e)
		return;
	out_begin(e->out, "cache_end");
	out_ku64(e->out, "records", e->records);
	out_end(e->out);
	bool ok = stream_out_close(e->out, EXIT_OK) == EXIT_OK;
	ok = fflush(e->f) == 0 && ok;
	ok = fsync(fileno(e->f)) == 0 && ok;
	ok = fclose(e->f) == 0 && ok;
	if (ok && e->keep && rename(e->tmp, e->path) == 0) {
		c->stored++;
	} else {
		if (e->keep)
			warn("--cache: cannot store '%s': %s", e->path, strerror(errno));
		unlink(e->tmp);
	}
	free(e->tmp);
	free(e->path);
	free(e);
}
