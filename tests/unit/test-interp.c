/*
 * test-interp.c: unit tests of the concrete PTX interpreter
 * (libcommon/ptx/interp.h): nvcc's PTX from tests/fixtures run on small
 * inputs and compared with the same computation written in C (bit-exact
 * where the kernel has no approximate instruction), faults reported with
 * line, thread and block, hand-written snippets for corner cases, the
 * block list and validity maps of sliced runs, and a speed measurement
 * (instructions per second, printed as a diagnostic).
 *
 * Run from the top of the tree (or set $DIRIGO_FIXTURES).
 */
#include "libcommon/deadline.h"
#include "tap.h"
#include "libcommon/ptx/ptx.h"
#include "libcommon/ptx/interp.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct arena arena = ARENA_INIT;

static struct ptx_module *load(const char *name)
{
	const char *dir = getenv("DIRIGO_FIXTURES");
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir ? dir : "tests/fixtures", name);
	FILE *f = fopen(path, "rb");
	if (!f) {
		printf("# cannot open %s\n", path);
		return NULL;
	}
	char *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			buf = xrealloc(buf, cap);
		}
		size_t k = fread(buf + n, 1, cap - n, f);
		if (k == 0)
			break;
		n += k;
	}
	fclose(f);
	char err[256];
	struct ptx_module *m = ptx_parse(&arena, buf, n, err, sizeof err);
	if (!m)
		printf("# %s: %s\n", name, err);
	free(buf);
	return m;
}

static struct ptx_module *parse_text(const char *text)
{
	char err[256];
	struct ptx_module *m = ptx_parse(&arena, text, strlen(text), err, sizeof err);
	if (!m)
		printf("# parse error: %s\n", err);
	return m;
}

/* Buffers of one test launch. */
struct mem {
	struct interp_buf b[8];
	unsigned n;
	uint64_t ptr[8];
};

static uint64_t add_buf(struct mem *M, void *data, size_t bytes)
{
	unsigned i = M->n++;
	M->b[i] = (struct interp_buf){ INTERP_BUF_BASE(i), bytes, data, NULL, NULL };
	return M->ptr[i] = INTERP_BUF_BASE(i);
}

static enum interp_status launch(const struct ptx_module *m, const char *entry, uint32_t gx,
                                 uint32_t gy, uint32_t bx, uint32_t by, uint32_t shmem,
                                 const void *const *args, struct mem *M,
                                 struct interp_stats *st, struct interp_error *err)
{
	struct interp_mem mem = { M->b, M->n };
	uint32_t grid[3] = { gx, gy, 1 }, block[3] = { bx, by, 1 };
	struct interp_error e;
	enum interp_status s = interp_launch(m, entry, grid, block, shmem, args, &mem, NULL, st,
	                                     err ? err : &e);
	if (s != INTERP_OK)
		printf("# %s: %s\n", entry, (err ? err : &e)->msg);
	return s;
}

static bool same_f(const float *a, const float *b, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++)
		if (memcmp(&a[i], &b[i], 4) != 0) {
			printf("# %s[%zu]: got %.9g, expected %.9g\n", what, i, a[i], b[i]);
			return false;
		}
	return true;
}

/* ---- fixtures ---- */

static void test_vec_add(void)
{
	struct ptx_module *m = load("vec_add.ptx");
	if (!ok(m, "vec_add.ptx parses"))
		return;
	enum { N = 1000 };
	float *a = malloc(N * 4), *b = malloc(N * 4), *c = malloc(N * 4), *ref = malloc(N * 4);
	for (int i = 0; i < N; i++) {
		a[i] = (float)i * 0.37f - 11.0f;
		b[i] = 1.0f / (float)(i + 3);
		ref[i] = a[i] + b[i];
	}
	memset(c, 0x7f, N * 4);
	struct mem M = { .n = 0 };
	add_buf(&M, a, N * 4);
	add_buf(&M, b, N * 4);
	add_buf(&M, c, N * 4);
	int n = N;
	const void *args[] = { &M.ptr[0], &M.ptr[1], &M.ptr[2], &n };
	struct interp_stats st;
	enum interp_status s = launch(m, "_Z7vec_addPKfS0_Pfi", (N + 127) / 128, 1, 128, 1, 0,
	                              args, &M, &st, NULL);
	ok(s == INTERP_OK, "vec_add runs");
	ok(same_f(c, ref, N, "c"), "vec_add matches C");
	ok(st.steps > 10 * N, "vec_add counts steps (%llu)", (unsigned long long)st.steps);

	/* out of bounds: n larger than the buffers */
	struct mem M2 = { .n = 0 };
	add_buf(&M2, a, 64 * 4);
	add_buf(&M2, b, 64 * 4);
	add_buf(&M2, c, 64 * 4);
	int n2 = 100;
	const void *args2[] = { &M2.ptr[0], &M2.ptr[1], &M2.ptr[2], &n2 };
	struct interp_error err;
	s = launch(m, "_Z7vec_addPKfS0_Pfi", 1, 1, 128, 1, 0, args2, &M2, NULL, &err);
	ok(s == INTERP_FAULT, "out-of-bounds read is a fault");
	ok(err.has_thread && err.tid[0] == 64 && err.ctaid[0] == 0, "fault names thread 64 of block 0");
	ok(err.line == 51 || err.line == 52, "fault names the load's line (%u)", err.line);
	ok(strstr(err.msg, "ld.global.f32") && strstr(err.msg, "thread (64,0,0)") &&
	   strstr(err.msg, "past the end"), "fault message: %s", err.msg);
	ok(err.addr == M2.ptr[0] + 256 || err.addr == M2.ptr[1] + 256, "fault address");

	/* a bad entry name and bad geometry */
	s = launch(m, "nope", 1, 1, 32, 1, 0, args, &M, NULL, &err);
	ok(s == INTERP_BADARG && strstr(err.msg, "nope"), "unknown entry: %s", err.msg);
	s = launch(m, "_Z7vec_addPKfS0_Pfi", 1, 1, 2048, 1, 0, args, &M, NULL, &err);
	ok(s == INTERP_BADARG, "block of 2048 threads refused");
	free(a);
	free(b);
	free(c);
	free(ref);
}

static void test_saxpy(void)
{
	struct ptx_module *m = load("grid_stride.ptx");
	if (!ok(m, "grid_stride.ptx parses"))
		return;
	enum { N = 5000 };
	float *x = malloc(N * 4), *y = malloc(N * 4), *ref = malloc(N * 4);
	float alpha = 1.7f;
	for (int i = 0; i < N; i++) {
		x[i] = sinf((float)i);
		y[i] = (float)(i % 17) - 8.5f;
		ref[i] = fmaf(alpha, x[i], y[i]);
	}
	struct mem M = { .n = 0 };
	add_buf(&M, x, N * 4);
	add_buf(&M, y, N * 4);
	int n = N;
	const void *args[] = { &n, &alpha, &M.ptr[0], &M.ptr[1] };
	ok(launch(m, "_Z5saxpyifPKfPf", 3, 1, 96, 1, 0, args, &M, NULL, NULL) == INTERP_OK,
	   "saxpy grid-stride runs");
	ok(same_f(y, ref, N, "y"), "saxpy matches C (fmaf)");
	free(x);
	free(y);
	free(ref);
}

static void test_grid2d(void)
{
	struct ptx_module *m = load("grid2d.ptx");
	if (!ok(m, "grid2d.ptx parses"))
		return;
	enum { ROWS = 37, COLS = 45 };
	float in[ROWS * COLS], out[ROWS * COLS], ref[ROWS * COLS];
	float scale = -0.75f;
	for (int i = 0; i < ROWS * COLS; i++)
		in[i] = (float)i * 0.01f;
	for (int r = 0; r < ROWS; r++)
		for (int c = 0; c < COLS; c++)
			ref[c * ROWS + r] = in[r * COLS + c] * scale;
	memset(out, 0, sizeof out);
	struct mem M = { .n = 0 };
	add_buf(&M, in, sizeof in);
	add_buf(&M, out, sizeof out);
	int rows = ROWS, cols = COLS;
	const void *args[] = { &M.ptr[0], &M.ptr[1], &rows, &cols, &scale };
	ok(launch(m, "_Z15transpose_scalePKfPfiif", (COLS + 15) / 16, (ROWS + 7) / 8, 16, 8, 0,
	          args, &M, NULL, NULL) == INTERP_OK, "2D transpose runs");
	ok(same_f(out, ref, ROWS * COLS, "out"), "2D transpose matches C");
}

static void test_reduce(void)
{
	struct ptx_module *m = load("reduce.ptx");
	if (!ok(m, "reduce.ptx parses"))
		return;
	enum { N = 1000, B = 256, NB = (N + B - 1) / B };
	float in[N], out[NB], ref[NB];
	for (int i = 0; i < N; i++)
		in[i] = 1.0f / (float)(i + 1) - 0.001f * (float)(i % 7);
	for (int b = 0; b < NB; b++) {
		float buf[B];
		for (int t = 0; t < B; t++)
			buf[t] = b * B + t < N ? in[b * B + t] : 0.0f;
		for (int s = 128; s >= 32; s >>= 1)
			for (int t = 0; t < s; t++)
				buf[t] = buf[t + s] + buf[t];
		float v[32];
		for (int t = 0; t < 32; t++)
			v[t] = buf[t];
		for (int off = 16; off > 0; off >>= 1) {
			float w[32];
			for (int t = 0; t < 32; t++)
				w[t] = v[t] + (t + off < 32 ? v[t + off] : v[t]);
			memcpy(v, w, sizeof v);
		}
		ref[b] = v[0];
	}
	struct mem M = { .n = 0 };
	add_buf(&M, in, sizeof in);
	add_buf(&M, out, sizeof out);
	int n = N;
	const void *args[] = { &M.ptr[0], &M.ptr[1], &n };
	ok(launch(m, "_Z9block_sumPKfPfi", NB, 1, B, 1, 0, args, &M, NULL, NULL) == INTERP_OK,
	   "shared-memory reduction with bar.sync and shfl.down runs");
	ok(same_f(out, ref, NB, "out"), "reduction matches C bit for bit");

	/* a block of 48 threads: the shuffle's full mask names absent lanes */
	struct interp_error err;
	enum interp_status s = launch(m, "_Z9block_sumPKfPfi", 1, 1, 48, 1, 0, args, &M, NULL, &err);
	ok(s == INTERP_OK, "block of 48: warp 0 is whole, shuffles fine");
	s = launch(m, "_Z9block_sumPKfPfi", 1, 1, 16, 1, 0, args, &M, NULL, &err);
	ok(s == INTERP_FAULT && strstr(err.msg, "shfl") && strstr(err.msg, "member mask"),
	   "block of 16: full-mask shuffle over absent lanes is a fault");
}

static void test_const_call(void)
{
	struct ptx_module *m = load("const_call.ptx");
	if (!ok(m, "const_call.ptx parses"))
		return;
	enum { N = 70 };
	float x[N], y[N], ref[N];
	const float poly[4] = { 1.0f, -0.5f, 0.25f, 2.0f };
	struct { float scale, shift; int pad[2]; } t = { 1.5f, -0.25f, { 0, 0 } };
	for (int i = 0; i < N; i++) {
		x[i] = (float)i * 0.1f - 3.0f;
		float acc = fmaf(x[i], 0.0f, poly[3]);
		acc = fmaf(acc, x[i], poly[2]);
		acc = fmaf(acc, x[i], poly[1]);
		acc = fmaf(acc, x[i], poly[0]);
		ref[i] = fmaf(t.scale, acc, t.shift);
	}
	struct mem M = { .n = 0 };
	add_buf(&M, x, sizeof x);
	add_buf(&M, y, sizeof y);
	int n = N;
	const void *args[] = { &M.ptr[0], &M.ptr[1], &n, &t };
	ok(launch(m, "_Z9eval_polyPKfPfi6affine", 3, 1, 32, 1, 0, args, &M, NULL, NULL) == INTERP_OK,
	   "call of a .func with a .const table runs");
	ok(same_f(y, ref, N, "y"), "horner through call.uni matches C");

	/* the table given by a buffer bound to the symbol */
	float table[4] = { 0.0f, 0.0f, 0.0f, 1.0f };   /* acc = x^3 */
	M.b[M.n] = (struct interp_buf){ INTERP_BUF_BASE(M.n), sizeof table, table, "poly", NULL };
	M.n++;
	ok(launch(m, "_Z9eval_polyPKfPfi6affine", 3, 1, 32, 1, 0, args, &M, NULL, NULL) == INTERP_OK,
	   "launch with the .const variable bound to a buffer");
	float want = fmaf(t.scale, fmaf(fmaf(fmaf(x[5], 0.0f, 1.0f), x[5], 0.0f), x[5], 0.0f) * x[5],
	                  t.shift);
	want = fmaf(t.scale, fmaf(fmaf(fmaf(fmaf(x[5], 0.0f, 1.0f), x[5], 0.0f), x[5], 0.0f), x[5],
	                          0.0f), t.shift);
	ok(memcmp(&y[5], &want, 4) == 0, "bound table is used (%g vs %g)", y[5], want);
}

static void test_activations(void)
{
	struct ptx_module *m = load("activations.ptx");
	if (!ok(m, "activations.ptx parses"))
		return;
	enum { N = 200 };
	float x[N], y[N];
	for (int i = 0; i < N; i++)
		x[i] = (float)(i - 100) * 0.1f;
	struct mem M = { .n = 0 };
	add_buf(&M, x, sizeof x);
	add_buf(&M, y, sizeof y);
	int n = N;
	const void *args[] = { &M.ptr[0], &M.ptr[1], &n };
	ok(launch(m, "_Z7sigmoidPKfPfi", 2, 1, 128, 1, 0, args, &M, NULL, NULL) == INTERP_OK,
	   "sigmoid (ex2.approx, fma.rm, cvt.sat, rcp.rn) runs");
	double worst = 0;
	for (int i = 0; i < N; i++)
		worst = fmax(worst, fabs(y[i] - 1.0 / (1.0 + exp(-(double)x[i]))));
	ok(worst < 2e-7, "sigmoid within 2e-7 of exact (%g)", worst);
	ok(launch(m, "_Z9gelu_tanhPKfPfi", 2, 1, 128, 1, 0, args, &M, NULL, NULL) == INTERP_OK,
	   "gelu_tanh (copysign, abs, rcp.approx.ftz) runs");
	worst = 0;
	for (int i = 0; i < N; i++) {
		double v = x[i], u = 0.7978845608 * (v + 0.044715 * v * v * v);
		double want = 0.5 * v * (1.0 + tanh(u));
		worst = fmax(worst, fabs(y[i] - want) / fmax(1.0, fabs(want)));
	}
	ok(worst < 1e-6, "gelu_tanh within 1e-6 of exact (%g)", worst);
}

static void test_interp_ops(void)
{
	struct ptx_module *m = load("interp_ops.ptx");
	if (!ok(m, "interp_ops.ptx parses"))
		return;
	/* warp votes, shuffles, bit operations */
	enum { W = 64 };
	int in[W], out[W * 8], ref[W * 8];
	for (int i = 0; i < W; i++)
		in[i] = (int)((unsigned)i * 2654435761u) >> (i % 9) ^ (i % 3 ? -i : i * 3);
	for (int w = 0; w < W / 32; w++) {
		const int *v = in + 32 * w;
		unsigned ballot = 0;
		int any = 0, all = 1;
		for (int l = 0; l < 32; l++) {
			ballot |= (unsigned)(v[l] > 0) << l;
			any |= v[l] > 100;
			all &= v[l] > -1000;
		}
		for (int l = 0; l < 32; l++) {
			int *o = ref + (32 * w + l) * 8, x = v[l];
			unsigned u = (unsigned)x, rev = 0;
			for (int k = 0; k < 32; k++)
				rev |= ((u >> k) & 1) << (31 - k);
			uint64_t t = ((uint64_t)0x12345678u << 32) | u;
			unsigned sel = 0x3175, bp = 0;
			for (int k = 0; k < 4; k++)
				bp |= (unsigned)((t >> (8 * ((sel >> (4 * k)) & 7))) & 0xff) << (8 * k);
			o[0] = (int)ballot;
			o[1] = any + 2 * all;
			o[2] = l >= 3 ? v[l - 3] : x;
			o[3] = v[l ^ 5];
			o[4] = v[(l * 7) & 31];
			o[5] = __builtin_popcount(u) + ((u ? __builtin_clz(u) : 32) << 8) +
			       (__builtin_ffs(x) << 16);
			o[6] = (int)(rev ^ bp);
			o[7] = (int)((unsigned)((x >> 3) * 7 / 5 % 11) + (unsigned)(x < -3 ? x : -3) +
			             (u > 77u ? u : 77u) + (u >> 29));
		}
	}
	struct mem M = { .n = 0 };
	add_buf(&M, in, sizeof in);
	add_buf(&M, out, sizeof out);
	const void *args[] = { &M.ptr[0], &M.ptr[1] };
	ok(launch(m, "_Z8warp_opsPKiPi", 1, 1, W, 1, 0, args, &M, NULL, NULL) == INTERP_OK,
	   "warp_ops runs");
	bool same = true;
	for (int i = 0; i < W * 8 && same; i++)
		if (out[i] != ref[i]) {
			printf("# warp_ops out[%d] (thread %d, item %d): got %d, expected %d\n", i, i / 8,
			       i % 8, out[i], ref[i]);
			same = false;
		}
	ok(same, "ballot, any/all, shfl up/xor/idx, popc/clz/ffs, brev, prmt, div/rem match C");

	/* atomics */
	enum { A = 300 };
	float x[A], sum = 0.0f;
	int imax = -5;
	unsigned cnt = 0;
	int rmax = -5;
	for (int i = 0; i < A; i++) {
		x[i] = (float)((i * 37) % 11);
		rmax = (int)(x[i] * 3.0f) > rmax ? (int)(x[i] * 3.0f) : rmax;
	}
	float rsum = 0;
	for (int i = 0; i < A; i++)
		rsum += x[i];
	struct mem M2 = { .n = 0 };
	add_buf(&M2, x, sizeof x);
	add_buf(&M2, &sum, 4);
	add_buf(&M2, &imax, 4);
	add_buf(&M2, &cnt, 4);
	int n = A;
	const void *args2[] = { &M2.ptr[0], &M2.ptr[1], &M2.ptr[2], &M2.ptr[3], &n };
	ok(launch(m, "_Z7atomicsPKfPfPiPji", 3, 1, 128, 1, 0, args2, &M2, NULL, NULL) == INTERP_OK,
	   "atomics run");
	ok(sum == rsum && imax == rmax && cnt == A, "atomicAdd f32 / atomicMax / atomicInc "
	   "(%g %d %u)", sum, imax, cnt);

	/* dynamic shared memory, doubles, __syncthreads_count */
	enum { S = 150, SB = 64 };
	double din[S], dout[S], dref[S];
	for (int i = 0; i < S; i++)
		din[i] = (double)(i % 13) * 0.125 - 0.5;
	for (int b = 0; b < (S + SB - 1) / SB; b++) {
		double s[SB];
		int c = 0;
		for (int t = 0; t < SB; t++) {
			int i = b * SB + t;
			s[t] = i < S ? din[i] * 1.5 + 0.25 : 0.0;
			c += s[t] > 1.0;
		}
		for (int t = 0; t < SB; t++)
			if (b * SB + t < S)
				dref[b * SB + t] = s[SB - 1 - t] + c;
	}
	struct mem M3 = { .n = 0 };
	add_buf(&M3, din, sizeof din);
	add_buf(&M3, dout, sizeof dout);
	n = S;
	const void *args3[] = { &M3.ptr[0], &M3.ptr[1], &n };
	ok(launch(m, "_Z10dyn_sharedPKdPdi", (S + SB - 1) / SB, 1, SB, 1, SB * 8, args3, &M3, NULL,
	          NULL) == INTERP_OK, "extern shared, f64, atom.shared run");
	ok(memcmp(dout, dref, sizeof dout) == 0, "dyn_shared matches C");
	struct interp_error err;
	enum interp_status st = launch(m, "_Z10dyn_sharedPKdPdi", (S + SB - 1) / SB, 1, SB, 1,
	                               SB * 4, args3, &M3, NULL, &err);
	ok(st == INTERP_FAULT && strstr(err.msg, "shared"), "too little dynamic shared memory is "
	   "a fault: %s", err.msg);

	/* local array, conversions */
	enum { C = 100 };
	int idx[C];
	float cx[C], cout[4 * C], cref[4 * C];
	for (int i = 0; i < C; i++) {
		idx[i] = (i * 5 + 3) % 23;
		cx[i] = (float)i * 0.37f + 0.1f;
	}
	for (int i = 0; i < C; i++) {
		float a[16];
		for (int k = 0; k < 16; k++)
			a[k] = cx[(i + k) % C] * (float)k;
		float v = a[idx[i] & 15];
		cref[4 * i + 0] = v;
		cref[4 * i + 1] = (float)(int)floorf(v * 0.3f) + (float)(unsigned)(v * 2.0f);
		cref[4 * i + 2] = (float)(_Float16)v + rintf(v);
		cref[4 * i + 3] = fminf(v, 2.5f) + fmaxf(-v, sqrtf(fabsf(v))) + v;
	}
	struct mem M4 = { .n = 0 };
	add_buf(&M4, idx, sizeof idx);
	add_buf(&M4, cx, sizeof cx);
	add_buf(&M4, cout, sizeof cout);
	n = C;
	const void *args4[] = { &M4.ptr[0], &M4.ptr[1], &M4.ptr[2], &n };
	ok(launch(m, "_Z10local_convPKiPKfPfi", 2, 1, 64, 1, 0, args4, &M4, NULL, NULL) == INTERP_OK,
	   "local array and conversions run");
	ok(same_f(cout, cref, 4 * C, "local_conv"), "local_conv matches C");
}

/* ---- hand-written snippets ---- */

static const char header[] = ".version 8.0\n.target sm_80\n.address_size 64\n";

/* Runs a one-thread kernel k(u64 out) whose body is text, returns out[0..n). */
static enum interp_status snippet(const char *body, uint64_t *out, unsigned n,
                                  struct interp_error *err)
{
	char *text = arena_printf(&arena, "%s.visible .entry k(.param .u64 k_out)\n{\n"
	                          ".reg .pred %%p<8>;\n.reg .b32 %%r<16>;\n.reg .f32 %%f<16>;\n"
	                          ".reg .b64 %%rd<16>;\n.reg .f64 %%fd<8>;\n.reg .b16 %%rs<8>;\n"
	                          "ld.param.u64 %%rd1, [k_out];\n%s\nret;\n}\n", header, body);
	struct ptx_module *m = parse_text(text);
	if (!m)
		return INTERP_BADARG;
	memset(out, 0, n * 8);
	struct interp_buf b = { INTERP_BUF_BASE(0), n * 8, out, NULL, NULL };
	struct interp_mem mem = { &b, 1 };
	uint64_t p = b.base;
	const void *args[] = { &p };
	uint32_t one[3] = { 1, 1, 1 };
	return interp_launch(m, "k", one, one, 0, args, &mem, NULL, NULL, err);
}

static void test_snippets(void)
{
	uint64_t o[8];
	struct interp_error err;
	/* min/max NaN rules, setp unordered, neg zero */
	enum interp_status s = snippet(
		"mov.f32 %f1, 0f7FC00000;\n"              /* NaN */
		"mov.f32 %f2, 0f3F800000;\n"              /* 1 */
		"min.f32 %f3, %f1, %f2;\n st.global.f32 [%rd1], %f3;\n"
		"max.NaN.f32 %f4, %f1, %f2;\n st.global.f32 [%rd1+8], %f4;\n"
		"setp.ltu.f32 %p1, %f1, %f2;\n selp.u32 %r1, 1, 0, %p1;\n st.global.u32 [%rd1+16], %r1;\n"
		"setp.lt.f32 %p2, %f1, %f2;\n selp.u32 %r2, 1, 0, %p2;\n st.global.u32 [%rd1+24], %r2;\n"
		"mov.f32 %f5, 0f80000000;\n mov.f32 %f6, 0f00000000;\n"
		"min.f32 %f7, %f6, %f5;\n st.global.f32 [%rd1+32], %f7;\n"
		"mov.f32 %f8, 0f00000001;\n add.ftz.f32 %f9, %f8, %f6;\n st.global.f32 [%rd1+40], %f9;\n"
		"add.f32 %f10, %f8, %f6;\n st.global.f32 [%rd1+48], %f10;\n"
		"add.sat.f32 %f11, %f2, %f2;\n st.global.f32 [%rd1+56], %f11;\n"
		"setp.eq.f32 %p3, %f2, %f2;\n bar.red.popc.u32 %r3, 0, %p3;\n"
		"bar.red.and.pred %p4, 0, !%p3;\n selp.u32 %r4, 10, 0, %p4;\n add.u32 %r5, %r3, %r4;\n"
		"st.global.u32 [%rd1+60], %r5;\n", o, 8, &err);
	ok(s == INTERP_OK, "float snippet runs %s", s ? err.msg : "");
	ok((uint32_t)o[0] == 0x3f800000 && (uint32_t)o[1] == 0x7fffffff, "min(NaN,1)=1, max.NaN=NaN");
	ok(o[2] == 1 && o[3] == 0, "setp.ltu true on NaN, setp.lt false");
	ok((uint32_t)o[4] == 0x80000000, "min(+0,-0) = -0");
	ok((uint32_t)o[5] == 0 && (uint32_t)o[6] == 1, ".ftz flushes a subnormal, plain add keeps it");
	ok((uint32_t)o[7] == 0x3f800000, ".sat clamps to 1");
	ok((o[7] >> 32) == 1, "bar.red.popc counts, bar.red.and with a negated predicate");

	/* integer corner cases and rounding conversions */
	s = snippet(
		"mov.u32 %r1, -7;\n shr.s32 %r2, %r1, 40;\n st.global.u32 [%rd1], %r2;\n"
		"shl.b32 %r3, %r1, 32;\n st.global.u32 [%rd1+8], %r3;\n"
		"mul.hi.s32 %r4, %r1, 1000000000;\n st.global.u32 [%rd1+16], %r4;\n"
		"mov.f32 %f1, 0fC0200000;\n cvt.rzi.s32.f32 %r5, %f1;\n st.global.u32 [%rd1+24], %r5;\n"
		"cvt.rmi.s32.f32 %r6, %f1;\n st.global.u32 [%rd1+32], %r6;\n"
		"mov.f32 %f2, 0f7F800000;\n cvt.rni.u16.f32 %rs1, %f2;\n st.global.u16 [%rd1+40], %rs1;\n"
		"mov.u32 %r7, 16777217;\n cvt.rp.f32.u32 %f3, %r7;\n st.global.f32 [%rd1+48], %f3;\n"
		"cvt.rn.f32.u32 %f4, %r7;\n st.global.f32 [%rd1+56], %f4;\n", o, 8, &err);
	ok(s == INTERP_OK, "integer snippet runs %s", s ? err.msg : "");
	ok((uint32_t)o[0] == 0xffffffffu && (uint32_t)o[1] == 0, "shift by 40/32: sign fill, zero");
	ok((int32_t)o[2] == (int32_t)((-7LL * 1000000000LL) >> 32), "mul.hi.s32");
	ok((int32_t)o[3] == -2 && (int32_t)o[4] == -3, "cvt.rzi/rmi of -2.5");
	ok((uint16_t)o[5] == 0xffff, "cvt to u16 saturates +inf");
	float up = 16777218.0f, rn = 16777216.0f;
	ok(memcmp(&o[6], &up, 4) == 0 && memcmp(&o[7], &rn, 4) == 0, "cvt.rp/rn.f32.u32 of 2^24+1");

	/* unsupported instruction: named with its line */
	s = snippet("tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [t, {%r1}];\n", o, 1, &err);
	ok(s == INTERP_UNSUPPORTED && err.line == 13 && strstr(err.msg, "tex"),
	   "unsupported instruction names itself and its line: %s", err.msg);

	/* a trap, a misaligned access, an infinite loop under a step limit */
	s = snippet("trap;\n", o, 1, &err);
	ok(s == INTERP_FAULT && strstr(err.msg, "trap"), "trap is a fault");
	s = snippet("st.global.u32 [%rd1+2], %r1;\n", o, 1, &err);
	ok(s == INTERP_FAULT && strstr(err.msg, "misaligned"), "misaligned store is a fault");
	char *loop = arena_printf(&arena, "%s.visible .entry k()\n{\nL: bra L;\n}\n", header);
	struct ptx_module *m = parse_text(loop);
	uint32_t one[3] = { 1, 1, 1 };
	struct interp_opts opts = { .max_steps = 100000 };
	s = m ? interp_launch(m, "k", one, one, 0, NULL, NULL, &opts, NULL, &err) : INTERP_BADARG;
	ok(s == INTERP_LIMIT && strstr(err.msg, "step limit"), "step limit: %s", err.msg);
	/* the same loop under a deadline and no step limit to speak of */
	struct interp_opts dl = { .max_steps = UINT64_MAX, .deadline = deadline_now() + 0.3 };
	double t0 = deadline_now();
	s = m ? interp_launch(m, "k", one, one, 0, NULL, NULL, &dl, NULL, &err) : INTERP_BADARG;
	double t = deadline_now() - t0;
	ok(s == INTERP_TIMEOUT && strstr(err.msg, "budget ran out") && t < 2.0,
	   "deadline: the loop stops after %.2f s: %s", t, err.msg);
	uint32_t many[3] = { 1u << 30, 1, 1 };
	char *nop = arena_printf(&arena, "%s.visible .entry k()\n{\nret;\n}\n", header);
	struct ptx_module *m2 = parse_text(nop);
	dl.deadline = deadline_now() + 0.3;
	t0 = deadline_now();
	s = m2 ? interp_launch(m2, "k", many, one, 0, NULL, NULL, &dl, NULL, &err) : INTERP_BADARG;
	t = deadline_now() - t0;
	ok(s == INTERP_TIMEOUT && t < 2.0, "deadline: a grid of 2^30 blocks stops after %.2f s", t);
}

/* ---- sliced runs: a block list, validity maps ---- */

static bool bit(const uint8_t *m, size_t i)
{
	return (m[i / 8] >> (i % 8)) & 1;
}

static void test_slice(void)
{
	struct ptx_module *m = load("vec_add.ptx");
	if (!ok(m, "vec_add.ptx parses for the slice tests"))
		return;
	enum { N = 512 };
	float *a = malloc(N * 4), *b = malloc(N * 4), *c = malloc(N * 4);
	for (int i = 0; i < N; i++) {
		a[i] = (float)i;
		b[i] = 0.5f;
	}
	memset(c, 0, N * 4);
	uint8_t va[N * 4 / 8 + 1], vb[N * 4 / 8 + 1], vc[N * 4 / 8 + 1];
	memset(va, 0, sizeof va);
	memset(vb, 0xff, sizeof vb);
	memset(vc, 0, sizeof vc);
	/* a is valid for elements 256..383 only: block 2 of 128 threads */
	memset(va + 256 * 4 / 8, 0xff, 128 * 4 / 8);
	struct mem M = { .n = 0 };
	add_buf(&M, a, N * 4);
	add_buf(&M, b, N * 4);
	add_buf(&M, c, N * 4);
	M.b[0].valid = va;
	M.b[1].valid = vb;
	M.b[2].valid = vc;
	int n = N;
	const void *args[] = { &M.ptr[0], &M.ptr[1], &M.ptr[2], &n };
	struct interp_mem mem = { M.b, M.n };
	uint32_t grid[3] = { N / 128, 1, 1 }, block[3] = { 128, 1, 1 };
	const uint32_t blocks[1][3] = { { 2, 0, 0 } };
	struct interp_opts opts = { .max_steps = 0, .blocks = blocks, .nblocks = 1 };
	struct interp_error err;
	struct interp_stats st;
	enum interp_status s = interp_launch(m, "_Z7vec_addPKfS0_Pfi", grid, block, 0, args, &mem, &opts,
	                                     &st, &err);
	ok(s == INTERP_OK, "one block of four runs %s", s ? err.msg : "");
	bool only = true;
	for (int i = 0; i < N; i++)
		if ((i >= 256 && i < 384) != (c[i] == a[i] + 0.5f))
			only = false;
	ok(only, "only block 2 wrote its elements");
	ok(bit(vc, 256 * 4) && bit(vc, 384 * 4 - 1) && !bit(vc, 256 * 4 - 1) && !bit(vc, 384 * 4),
	   "stores set the validity bits of exactly the bytes they wrote");
	ok(st.steps > 0 && st.steps < 128 * 40, "steps of one block only (%llu)", (unsigned long long)st.steps);

	/* block 1 reads elements of a that were not computed */
	const uint32_t other[2][3] = { { 2, 0, 0 }, { 1, 0, 0 } };
	opts.blocks = other;
	opts.nblocks = 2;
	s = interp_launch(m, "_Z7vec_addPKfS0_Pfi", grid, block, 0, args, &mem, &opts, NULL, &err);
	ok(s == INTERP_UNCOMPUTED, "a read of bytes not computed stops the run");
	ok(err.has_thread && err.ctaid[0] == 1 && err.tid[0] == 0 && strstr(err.msg, "not computed") &&
	   strstr(err.msg, "ld.global"), "it names the load, the thread and the block: %s", err.msg);

	/* a block outside the grid */
	const uint32_t outside[1][3] = { { 4, 0, 0 } };
	opts.blocks = outside;
	opts.nblocks = 1;
	s = interp_launch(m, "_Z7vec_addPKfS0_Pfi", grid, block, 0, args, &mem, &opts, NULL, &err);
	ok(s == INTERP_BADARG && strstr(err.msg, "outside the grid"), "a block outside the grid: %s", err.msg);

	/* red leaves validity alone, atom reads */
	uint64_t o[2] = { 0, 0 };
	uint8_t vo[2] = { 0x0f, 0 };
	const char *text[2] = {
		"mov.u32 %r1, 1;\n red.global.add.u32 [%rd1+4], %r1;\n",
		"mov.u32 %r1, 1;\n atom.global.add.u32 %r2, [%rd1+4], %r1;\n",
	};
	for (int k = 0; k < 2; k++) {
		char *body = arena_printf(&arena, "%s.visible .entry k(.param .u64 k_out)\n{\n"
		                          ".reg .b32 %%r<4>;\n.reg .b64 %%rd<4>;\n"
		                          "ld.param.u64 %%rd1, [k_out];\n%s\nret;\n}\n", header, text[k]);
		struct ptx_module *km = parse_text(body);
		struct interp_buf ob = { INTERP_BUF_BASE(0), 16, o, NULL, vo };
		struct interp_mem om = { &ob, 1 };
		uint64_t p = ob.base;
		const void *kargs[] = { &p };
		uint32_t one[3] = { 1, 1, 1 };
		s = km ? interp_launch(km, "k", one, one, 0, kargs, &om, NULL, NULL, &err) : INTERP_BADARG;
		if (k == 0)
			ok(s == INTERP_OK && vo[0] == 0x0f && (uint32_t)(o[0] >> 32) == 1,
			   "red on bytes not computed runs and leaves them not computed");
		else
			ok(s == INTERP_UNCOMPUTED && strstr(err.msg, "atomic update"),
			   "atom on bytes not computed stops the run: %s", err.msg);
	}
	free(a);
	free(b);
	free(c);
}

/* ---- speed ---- */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void test_matmul_speed(void)
{
	struct ptx_module *m = load("matmul.ptx");
	if (!ok(m, "matmul.ptx parses"))
		return;
	enum { Mr = 96, Nc = 80, K = 100 };
	float *A = malloc(Mr * K * 4), *B = malloc(K * Nc * 4), *C = malloc(Mr * Nc * 4);
	for (int i = 0; i < Mr * K; i++)
		A[i] = (float)((i * 7) % 13) * 0.25f - 1.0f;
	for (int i = 0; i < K * Nc; i++)
		B[i] = (float)((i * 5) % 11) * 0.125f - 0.5f;
	struct mem M = { .n = 0 };
	add_buf(&M, A, Mr * K * 4);
	add_buf(&M, B, K * Nc * 4);
	add_buf(&M, C, Mr * Nc * 4);
	int mm = Mr, nn = Nc, kk = K;
	const void *args[] = { &M.ptr[0], &M.ptr[1], &M.ptr[2], &mm, &nn, &kk };
	struct interp_stats st;
	double t0 = now();
	enum interp_status s = launch(m, "_Z12matmul_tiledPKfS0_Pfiii", (Nc + 31) / 32, (Mr + 31) / 32,
	                              32, 32, 0, args, &M, &st, NULL);
	double dt = now() - t0;
	ok(s == INTERP_OK, "tiled matmul (1024-thread blocks) runs");
	double worst = 0;
	for (int r = 0; r < Mr; r++)
		for (int c = 0; c < Nc; c++) {
			double acc = 0;
			for (int k = 0; k < K; k++)
				for (int j = 0; j < 4; j++) {
					int c2 = c - c % 32 + (c % 32 + 8 * j) % 32;
					if (c2 < Nc)
						acc += (double)A[r * K + k] * B[k * Nc + c2] * (1.0 + 0.5 * j);
				}
			worst = fmax(worst, fabs(acc - C[r * Nc + c]) / fmax(1.0, fabs(acc)));
		}
	ok(worst < 1e-4, "matmul within 1e-4 of a double reference (%g)", worst);
	double rate = (double)st.steps / dt;
	/* The speed is printed, not asserted: machines are noisy (figures go
	 * to bench/RESULTS.md). */
	printf("# speed: matmul %llu thread-instructions in %.3f s = %.1f M/s\n",
	       (unsigned long long)st.steps, dt, rate / 1e6);
	ok(st.steps > 0, "the interpreter counts the thread-instructions it runs");
	free(A);
	free(B);
	free(C);
}

int main(void)
{
	test_vec_add();
	test_saxpy();
	test_grid2d();
	test_reduce();
	test_const_call();
	test_activations();
	test_interp_ops();
	test_snippets();
	test_slice();
	test_matmul_speed();
	arena_release(&arena);
	return done_testing();
}
