/*
 * interp-ops.c: executes one decoded instruction (arithmetic, conversion,
 * comparison, memory, atomics) for the lanes of a warp that stand at it.
 * Control flow and collectives are interp.c's.
 *
 * Registers are uint64_t slots; an instruction reads the low bits of its
 * width (sign-extending for signed types) and writes its result
 * zero-extended, or sign-extended for signed loads.  Floats are their IEEE
 * bits: f32 in float, f64 in double, as on the GPU; .ftz flushes
 * subnormal inputs and results to zero, .sat clamps to [0, 1] (NaN to 0),
 * and directed rounding modifiers switch the FPU's rounding mode around
 * one operation.
 */
#include "libcommon/ptx/interp-impl.h"

#include <fenv.h>
#include <math.h>
#include <string.h>

static inline uint64_t wmask(unsigned w)
{
	return w >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << w) - 1;
}

static inline int64_t sext(uint64_t v, unsigned w)
{
	return w >= 64 ? (int64_t)v : (int64_t)(v << (64 - w)) >> (64 - w);
}

static inline float F(uint64_t v)
{
	uint32_t u = (uint32_t)v;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static inline uint64_t BF(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static inline double D(uint64_t v)
{
	double d;
	memcpy(&d, &v, 8);
	return d;
}

static inline uint64_t BD(double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	return u;
}

static inline float ftz(float x)
{
	return fpclassify(x) == FP_SUBNORMAL ? copysignf(0.0f, x) : x;
}

static inline double ftzd(double x)
{
	return fpclassify(x) == FP_SUBNORMAL ? copysign(0.0, x) : x;
}

static int fe_mode(unsigned r)
{
	switch (r) {
	case RZ: case RZI: return FE_TOWARDZERO;
	case RM: case RMI: return FE_DOWNWARD;
	case RP: case RPI: return FE_UPWARD;
	default: return FE_TONEAREST;
	}
}

/* One f32 operation in rounding mode r (RN handled by the callers). */
static float f32_rounded(unsigned op, float a, float b, float c, unsigned r)
{
	volatile float va = a, vb = b, vc = c, vr;
	fesetround(fe_mode(r));
	switch (op) {
	case I_FADD: vr = va + vb; break;
	case I_FSUB: vr = va - vb; break;
	case I_FMUL: vr = va * vb; break;
	case I_FDIV: vr = va / vb; break;
	case I_FSQRT: vr = sqrtf(va); break;
	case I_FRCP: vr = 1.0f / va; break;
	default: vr = fmaf(va, vb, vc); break;
	}
	fesetround(FE_TONEAREST);
	return vr;
}

static double f64_rounded(unsigned op, double a, double b, double c, unsigned r)
{
	volatile double va = a, vb = b, vc = c, vr;
	fesetround(fe_mode(r));
	switch (op) {
	case I_FADD: vr = va + vb; break;
	case I_FSUB: vr = va - vb; break;
	case I_FMUL: vr = va * vb; break;
	case I_FDIV: vr = va / vb; break;
	case I_FSQRT: vr = sqrt(va); break;
	case I_FRCP: vr = 1.0 / va; break;
	default: vr = fma(va, vb, vc); break;
	}
	fesetround(FE_TONEAREST);
	return vr;
}

/* PTX min/max: a NaN operand yields the other; -0 < +0; .NaN propagates. */
static float fminmax(float a, float b, bool max, bool nan)
{
	if (isnan(a) || isnan(b)) {
		if (nan || (isnan(a) && isnan(b)))
			return F(0x7fffffff);
		return isnan(a) ? b : a;
	}
	if (a == b)
		return (signbit(a) != 0) == max ? b : a;
	return (a < b) != max ? a : b;
}

static double dminmax(double a, double b, bool max, bool nan)
{
	if (isnan(a) || isnan(b)) {
		if (nan || (isnan(a) && isnan(b)))
			return D(UINT64_C(0x7fffffffffffffff));
		return isnan(a) ? b : a;
	}
	if (a == b)
		return (signbit(a) != 0) == max ? b : a;
	return (a < b) != max ? a : b;
}

static float fsat(float x)
{
	if (isnan(x))
		return 0.0f;
	return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x;
}

static double dsat(double x)
{
	if (isnan(x))
		return 0.0;
	return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
}

static bool fcmp(unsigned cmp, double a, double b)
{
	bool un = isnan(a) || isnan(b);
	switch (cmp) {
	case C_EQ: return !un && a == b;
	case C_NE: return !un && a != b;
	case C_LT: return !un && a < b;
	case C_LE: return !un && a <= b;
	case C_GT: return !un && a > b;
	case C_GE: return !un && a >= b;
	case C_EQU: return un || a == b;
	case C_NEU: return un || a != b;
	case C_LTU: return un || a < b;
	case C_LEU: return un || a <= b;
	case C_GTU: return un || a > b;
	case C_GEU: return un || a >= b;
	case C_NUM: return !un;
	case C_NAN: return un;
	default: return false;
	}
}

static bool icmp(unsigned cmp, uint64_t a, uint64_t b, unsigned w, bool sgn)
{
	int64_t sa = sext(a, w), sb = sext(b, w);
	a &= wmask(w);
	b &= wmask(w);
	switch (cmp) {
	case C_EQ: return a == b;
	case C_NE: return a != b;
	case C_LT: return sgn ? sa < sb : a < b;
	case C_LE: return sgn ? sa <= sb : a <= b;
	case C_GT: return sgn ? sa > sb : a > b;
	case C_GE: return sgn ? sa >= sb : a >= b;
	case C_LO: return a < b;
	case C_LS: return a <= b;
	case C_HI: return a > b;
	case C_HS: return a >= b;
	default: return false;
	}
}

static bool combine(unsigned sub2, bool x, uint64_t c)
{
	bool p = (c & 1) != 0;
	if (sub2 & 4)
		p = !p;
	switch (sub2 & 3) {
	case B_AND: return x && p;
	case B_OR: return x || p;
	case B_XOR: return x != p;
	default: return x;
	}
}

/* ---- conversions ---- */

static float half_to_float(uint16_t h)
{
	uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 0x1f, m = h & 0x3ff;
	if (e == 0)
		return (s ? -1.0f : 1.0f) * ldexpf((float)m, -24);
	if (e == 31)
		return F(s | 0x7f800000 | (m << 13));
	return F(s | ((e + 112) << 23) | (m << 13));
}

static uint16_t float_to_half(float f)
{
	/* round to nearest even through the exact value */
	uint32_t u = (uint32_t)BF(f);
	uint16_t s = (uint16_t)((u >> 16) & 0x8000);
	if (isnan(f))
		return (uint16_t)(s | 0x7e00);
	float a = fabsf(f);
	if (a >= 65520.0f)
		return (uint16_t)(s | 0x7c00);
	if (a < ldexpf(1.0f, -14)) {            /* subnormal half */
		float q = nearbyintf(a * ldexpf(1.0f, 24));
		return (uint16_t)(s | (uint16_t)q);
	}
	int e;
	float m = frexpf(a, &e);                  /* a = m * 2^e, m in [0.5, 1) */
	float q = nearbyintf(m * 2048.0f);        /* 11 significant bits */
	if (q >= 2048.0f) {
		q /= 2;
		e++;
	}
	uint32_t he = (uint32_t)(e - 1 + 15);
	return (uint16_t)(s | (he << 10) | ((uint32_t)q & 0x3ff));
}

static double round_int(double x, unsigned r)
{
	switch (r) {
	case RZI: return trunc(x);
	case RMI: return floor(x);
	case RPI: return ceil(x);
	case RNI: return nearbyint(x);
	default: return x;
	}
}

static uint64_t f2i(double x, unsigned w, bool sgn)
{
	if (isnan(x))
		return 0;
	if (sgn) {
		double lo = -ldexp(1.0, (int)w - 1), hi = ldexp(1.0, (int)w - 1);
		if (x <= lo)
			return (uint64_t)(INT64_MIN >> (64 - w)) & wmask(w);
		if (x >= hi)
			return wmask(w - 1);
		return (uint64_t)(int64_t)x & wmask(w);
	}
	if (x <= 0)
		return 0;
	if (x >= ldexp(1.0, (int)w))
		return wmask(w);
	return (uint64_t)x & wmask(w);
}

static bool is_float_t(unsigned t)
{
	return t == PT_F16 || t == PT_BF16 || t == PT_F32 || t == PT_F64;
}

/* The value of v (type t) as a double (floats) */
static double fval(uint64_t v, unsigned t)
{
	switch (t) {
	case PT_F16: return half_to_float((uint16_t)v);
	case PT_BF16: return F((v & 0xffff) << 16);
	case PT_F32: return F(v);
	default: return D(v);
	}
}

static uint64_t cvt(const struct dinst *in, uint64_t v)
{
	unsigned dt = in->t2, st = in->t, r = in->sub, dw = in->w, sw = in->w2;
	bool dsg = ptx_type_is_signed(dt), ssg = ptx_type_is_signed(st);
	bool ft = (in->flags & DF_FTZ) != 0, sat = (in->flags & DF_SAT) != 0;
	if (!is_float_t(dt) && !is_float_t(st)) {
		/* integer to integer */
		int64_t sv = ssg ? sext(v, sw) : (int64_t)(v & wmask(sw));
		if (sat && dw < 64) {
			int64_t lo = dsg ? -(int64_t)(UINT64_C(1) << (dw - 1)) : 0;
			int64_t hi = dsg ? (int64_t)wmask(dw - 1) : (int64_t)wmask(dw);
			if (!ssg && sw == 64 && (v >> 63))
				sv = hi;              /* huge unsigned */
			else if (sv < lo)
				sv = lo;
			else if (sv > hi)
				sv = hi;
		} else if (sat && dw == 64 && dsg != ssg && sw == 64) {
			if (dsg && (v >> 63))
				sv = INT64_MAX;   /* u64 -> s64 */
			else if (!dsg && sv < 0)
				sv = 0;
		} else if (sat && !dsg && ssg && sv < 0) {
			sv = 0;
		}
		return dsg ? (uint64_t)sv & wmask(dw) : (uint64_t)sv & wmask(dw);
	}
	if (is_float_t(st) && !is_float_t(dt)) {
		double x = fval(v, st);
		if (ft && st == PT_F32)
			x = ftz((float)x);
		return f2i(round_int(x, r == RN ? RNI : r), dw, dsg);
	}
	if (!is_float_t(st)) {
		/* integer to float */
		bool big = sw == 64;
		if (dt == PT_F32) {
			float f;
			if (r == RN || r == RNONE) {
				f = ssg ? (float)sext(v, sw) : (float)(v & wmask(sw));
			} else {
				volatile int64_t s = sext(v, sw);
				volatile uint64_t u = v & wmask(sw);
				volatile float vf;
				fesetround(fe_mode(r));
				vf = ssg ? (float)s : (float)u;
				fesetround(FE_TONEAREST);
				f = vf;
			}
			if (sat)
				f = fsat(f);
			return BF(f);
		}
		if (dt == PT_F64) {
			double d;
			if ((r == RN || r == RNONE) || !big) {
				d = ssg ? (double)sext(v, sw) : (double)(v & wmask(sw));
			} else {
				volatile int64_t s = sext(v, sw);
				volatile uint64_t u = v & wmask(sw);
				volatile double vd;
				fesetround(fe_mode(r));
				vd = ssg ? (double)s : (double)u;
				fesetround(FE_TONEAREST);
				d = vd;
			}
			if (sat)
				d = dsat(d);
			return BD(d);
		}
		double x = ssg ? (double)sext(v, sw) : (double)(v & wmask(sw));
		return dt == PT_F16 ? float_to_half((float)x) : (BF((float)x) >> 16);
	}
	/* float to float */
	double x = fval(v, st);
	if (r >= RNI && r <= RPI)
		x = round_int(x, r);
	if (dt == PT_F32) {
		float f;
		if (st == PT_F64 && r != RN && r <= RP) {
			volatile double vx = x;
			volatile float vf;
			fesetround(fe_mode(r));
			vf = (float)vx;
			fesetround(FE_TONEAREST);
			f = vf;
		} else {
			f = (float)x;
		}
		if (st == PT_F32 && isnan(F(v)) && !(r >= RNI && r <= RPI))
			f = F(v);
		if (ft)
			f = ftz(f);
		if (sat)
			f = fsat(f);
		return BF(f);
	}
	if (dt == PT_F64) {
		if (sat)
			x = dsat(x);
		return BD(x);
	}
	if (dt == PT_F16)
		return float_to_half((float)x);
	if (dt == PT_BF16) {
		uint32_t u = (uint32_t)BF((float)x);
		if (isnan((float)x))
			return 0x7fff;
		u += 0x7fff + ((u >> 16) & 1);
		return u >> 16;
	}
	return 0;
}

/* ---- integer helpers ---- */

static uint64_t bfe(uint64_t a, uint64_t b, uint64_t c, unsigned w, bool sgn)
{
	unsigned msb = w - 1, pos = (unsigned)(b & 0xff), len = (unsigned)(c & 0xff);
	unsigned sbit = 0;
	if (sgn && len) {
		unsigned top = pos + len - 1 < msb ? pos + len - 1 : msb;
		sbit = (a >> top) & 1;
	}
	uint64_t d = 0;
	for (unsigned i = 0; i <= msb; i++) {
		unsigned bit = (i < len && pos + i <= msb) ? (unsigned)(a >> (pos + i)) & 1 : sbit;
		d |= (uint64_t)bit << i;
	}
	return d;
}

static uint64_t bfi(uint64_t f, uint64_t b, uint64_t c, uint64_t e, unsigned w)
{
	unsigned msb = w - 1, pos = (unsigned)(c & 0xff), len = (unsigned)(e & 0xff);
	uint64_t d = b;
	for (unsigned i = 0; i < len && pos + i <= msb; i++) {
		uint64_t bit = (f >> i) & 1;
		d = (d & ~(UINT64_C(1) << (pos + i))) | (bit << (pos + i));
	}
	return d & wmask(w);
}

static uint32_t prmt(uint32_t a, uint32_t b, uint32_t c, unsigned mode)
{
	uint64_t t = ((uint64_t)b << 32) | a;
	unsigned sel[4];
	bool sgn[4] = { false, false, false, false };
	unsigned cc = c & 3;
	switch (mode) {
	case 0:
		for (int i = 0; i < 4; i++) {
			unsigned s = (c >> (4 * i)) & 0xf;
			sel[i] = s & 7;
			sgn[i] = (s & 8) != 0;
		}
		break;
	case 1: for (int i = 0; i < 4; i++) sel[i] = (cc + (unsigned)i) & 7; break;     /* f4e */
	case 2: for (int i = 0; i < 4; i++) sel[i] = (cc - (unsigned)i) & 7; break;     /* b4e */
	case 3: for (int i = 0; i < 4; i++) sel[i] = cc; break;                          /* rc8 */
	case 4: for (int i = 0; i < 4; i++) sel[i] = (unsigned)i < cc ? (unsigned)i : cc; break; /* ecl */
	case 5: for (int i = 0; i < 4; i++) sel[i] = (unsigned)i > cc ? (unsigned)i : cc; break; /* ecr */
	default:                                                                         /* rc16 */
		for (int i = 0; i < 4; i++)
			sel[i] = ((c & 1) ? 2 : 0) + ((unsigned)i & 1);
		break;
	}
	uint32_t d = 0;
	for (int i = 0; i < 4; i++) {
		uint32_t byte = (uint32_t)(t >> (8 * sel[i])) & 0xff;
		if (sgn[i])
			byte = (byte & 0x80) ? 0xff : 0;
		d |= byte << (8 * i);
	}
	return d;
}

static uint64_t bfind(uint64_t a, unsigned w, bool sgn, bool shiftamt)
{
	a &= wmask(w);
	if (sgn && ((a >> (w - 1)) & 1))
		a = ~a & wmask(w);
	if (!a)
		return 0xffffffffu;
	unsigned pos = 63 - (unsigned)__builtin_clzll(a);
	return shiftamt ? w - 1 - pos : pos;
}

static uint64_t brev(uint64_t a, unsigned w)
{
	uint64_t d = 0;
	for (unsigned i = 0; i < w; i++)
		d |= ((a >> i) & 1) << (w - 1 - i);
	return d;
}

static uint64_t lop3(uint64_t a, uint64_t b, uint64_t c, unsigned lut)
{
	uint64_t d = 0;
	for (unsigned i = 0; i < 8; i++)
		if (lut & (1u << i))
			d |= ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c);
	return d & 0xffffffffu;
}

static uint64_t idiv(uint64_t a, uint64_t b, unsigned w, bool sgn, bool rem)
{
	uint64_t m = wmask(w);
	if (!sgn) {
		a &= m;
		b &= m;
		if (!b)
			return rem ? a : m;
		return (rem ? a % b : a / b) & m;
	}
	int64_t x = sext(a, w), y = sext(b, w);
	if (!y)
		return rem ? (uint64_t)x & m : m;
	if (y == -1)
		return rem ? 0 : (uint64_t)(0 - (uint64_t)x) & m;
	return (uint64_t)(rem ? x % y : x / y) & m;
}

/* ---- memory ---- */

static uint64_t load_bytes(const uint8_t *p, unsigned n, bool sgn)
{
	switch (n) {
	case 1: return sgn ? (uint64_t)(int64_t)(int8_t)p[0] : p[0];
	case 2: { uint16_t v; memcpy(&v, p, 2); return sgn ? (uint64_t)(int64_t)(int16_t)v : v; }
	case 4: { uint32_t v; memcpy(&v, p, 4); return sgn ? (uint64_t)(int64_t)(int32_t)v : v; }
	default: { uint64_t v; memcpy(&v, p, 8); return v; }
	}
}

static void store_bytes(uint8_t *p, unsigned n, uint64_t v)
{
	switch (n) {
	case 1: p[0] = (uint8_t)v; break;
	case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
	default: memcpy(p, &v, 8); break;
	}
}

static uint64_t atom_apply(const struct dinst *in, uint64_t old, uint64_t b, uint64_t c)
{
	unsigned w = in->w;
	bool sgn = (in->flags & DF_SIGNED) != 0;
	bool fl = in->t == PT_F32 || in->t == PT_F64;
	uint64_t m = wmask(w);
	switch (in->sub) {
	case A_ADD:
		if (in->t == PT_F32)
			return BF(F(old) + F(b));
		if (in->t == PT_F64)
			return BD(D(old) + D(b));
		return (old + b) & m;
	case A_MIN: case A_MAX: {
		bool max = in->sub == A_MAX;
		if (fl)
			return in->t == PT_F32 ? BF(fminmax(F(old), F(b), max, false))
			                       : BD(dminmax(D(old), D(b), max, false));
		bool lt = sgn ? sext(old, w) < sext(b, w) : (old & m) < (b & m);
		return (lt != max ? old : b) & m;
	}
	case A_EXCH: return b & m;
	case A_CAS: return (old & m) == (b & m) ? c & m : old;
	case A_INC: return ((old & m) >= (b & m)) ? 0 : (old + 1) & m;
	case A_DEC: return ((old & m) == 0 || (old & m) > (b & m)) ? b & m : (old - 1) & m;
	case A_AND: return old & b & m;
	case A_OR: return (old | b) & m;
	default: return (old ^ b) & m;
	}
}

/* ---- the instruction ---- */

#define LANES for (uint32_t m_ = mask; m_; m_ &= m_ - 1) { \
	struct lane *L = &lanes[__builtin_ctz(m_)]; uint64_t *R = L->R; (void)L; (void)R;
#define END }

#define F32_1(expr) do { bool ft_ = in->flags & DF_FTZ, st_ = in->flags & DF_SAT; LANES \
	float a = F(R[in->a]); \
	if (ft_) \
		a = ftz(a); \
	float r = (expr); \
	if (ft_) \
		r = ftz(r); \
	if (st_) \
		r = fsat(r); \
	R[in->d] = BF(r); END } while (0)
#define F64_1(expr) do { bool st_ = in->flags & DF_SAT; LANES \
	double a = D(R[in->a]); \
	double r = (expr); \
	if (st_) \
		r = dsat(r); \
	R[in->d] = BD(r); END } while (0)

static bool exec_float(struct ictx *c, struct lane *lanes, const struct dinst *in, uint32_t mask)
{
	(void)c;
	bool f64 = in->flags & DF_F64, ft = in->flags & DF_FTZ, st = in->flags & DF_SAT;
	unsigned op = in->op, rnd = in->sub;
	bool nan = in->flags & DF_NAN;
	switch (op) {
	case I_FADD: case I_FSUB: case I_FMUL: case I_FFMA: case I_FDIV:
		if (f64) {
			LANES
				double a = D(R[in->a]), b = D(R[in->b]), cc = op == I_FFMA ? D(R[in->c]) : 0, r;
				if (rnd != RN && !(in->flags & DF_APPROX))
					r = f64_rounded(op, a, b, cc, rnd);
				else if (op == I_FADD) r = a + b;
				else if (op == I_FSUB) r = a - b;
				else if (op == I_FMUL) r = a * b;
				else if (op == I_FDIV) r = a / b;
				else r = fma(a, b, cc);
				if (st) r = dsat(r);
				R[in->d] = BD(r);
			END
			return true;
		}
		if (!ft && !st && rnd == RN) {
			switch (op) {
			case I_FADD: LANES R[in->d] = BF(F(R[in->a]) + F(R[in->b])); END return true;
			case I_FSUB: LANES R[in->d] = BF(F(R[in->a]) - F(R[in->b])); END return true;
			case I_FMUL: LANES R[in->d] = BF(F(R[in->a]) * F(R[in->b])); END return true;
			case I_FFMA: LANES R[in->d] = BF(fmaf(F(R[in->a]), F(R[in->b]), F(R[in->c]))); END return true;
			default: break;
			}
		}
		LANES
			float a = F(R[in->a]), b = F(R[in->b]), cc = op == I_FFMA ? F(R[in->c]) : 0, r;
			if (ft) {
				a = ftz(a);
				b = ftz(b);
				cc = ftz(cc);
			}
			if (rnd != RN && !(in->flags & DF_APPROX))
				r = f32_rounded(op, a, b, cc, rnd);
			else if (op == I_FADD) r = a + b;
			else if (op == I_FSUB) r = a - b;
			else if (op == I_FMUL) r = a * b;
			else if (op == I_FDIV) r = a / b;
			else r = fmaf(a, b, cc);
			if (ft) r = ftz(r);
			if (st) r = fsat(r);
			R[in->d] = BF(r);
		END
		return true;
	case I_FRCP:
		if (f64) F64_1(rnd != RN ? f64_rounded(I_FRCP, a, 0, 0, rnd) : 1.0 / a);
		else F32_1(rnd != RN && !(in->flags & DF_APPROX) ? f32_rounded(I_FRCP, a, 0, 0, rnd) : 1.0f / a);
		return true;
	case I_FSQRT:
		if (f64) F64_1(rnd != RN ? f64_rounded(I_FSQRT, a, 0, 0, rnd) : sqrt(a));
		else F32_1(rnd != RN && !(in->flags & DF_APPROX) ? f32_rounded(I_FSQRT, a, 0, 0, rnd) : sqrtf(a));
		return true;
	case I_FRSQRT:
		if (f64) F64_1(1.0 / sqrt(a));
		else F32_1(1.0f / sqrtf(a));
		return true;
	case I_FEX2: if (f64) F64_1(exp2(a)); else F32_1(exp2f(a)); return true;
	case I_FLG2: if (f64) F64_1(log2(a)); else F32_1(log2f(a)); return true;
	case I_FSIN: if (f64) F64_1(sin(a)); else F32_1(sinf(a)); return true;
	case I_FCOS: if (f64) F64_1(cos(a)); else F32_1(cosf(a)); return true;
	case I_FTANH: if (f64) F64_1(tanh(a)); else F32_1(tanhf(a)); return true;
	case I_FABS:
		if (f64) { LANES R[in->d] = R[in->a] & ~(UINT64_C(1) << 63); END }
		else { LANES float a = F(R[in->a]); if (ft) a = ftz(a); R[in->d] = BF(a) & 0x7fffffffu; END }
		return true;
	case I_FNEG:
		if (f64) { LANES R[in->d] = R[in->a] ^ (UINT64_C(1) << 63); END }
		else { LANES float a = F(R[in->a]); if (ft) a = ftz(a); R[in->d] = (BF(a) ^ 0x80000000u); END }
		return true;
	case I_FMIN: case I_FMAX:
		LANES
			if (f64) {
				R[in->d] = BD(dminmax(D(R[in->a]), D(R[in->b]), op == I_FMAX, nan));
			} else {
				float a = F(R[in->a]), b = F(R[in->b]);
				if (ft) { a = ftz(a); b = ftz(b); }
				R[in->d] = BF(fminmax(a, b, op == I_FMAX, nan));
			}
		END
		return true;
	case I_FCOPYSIGN:       /* copysign d, a, b: |b| with the sign of a */
		LANES
			if (f64)
				R[in->d] = (R[in->b] & ~(UINT64_C(1) << 63)) | (R[in->a] & (UINT64_C(1) << 63));
			else
				R[in->d] = (R[in->b] & 0x7fffffffu) | (R[in->a] & 0x80000000u);
		END
		return true;
	case I_TESTP:
		LANES
			double x = f64 ? D(R[in->a]) : F(R[in->a]);
			int k = fpclassify(x);
			if (!f64)
				k = fpclassify(F(R[in->a]));
			bool r;
			switch (in->sub) {
			case 0: r = isfinite(x); break;
			case 1: r = isinf(x); break;
			case 2: r = !isnan(x); break;
			case 3: r = isnan(x); break;
			case 4: r = k == FP_NORMAL; break;
			default: r = k == FP_SUBNORMAL; break;
			}
			R[in->d] = r;
		END
		return true;
	default:
		return interp_fail(c, INTERP_UNSUPPORTED, in, NULL, "internal: not a float op");
	}
}

static bool exec_mem(struct ictx *c, struct lane *lanes, const struct dinst *in, uint32_t mask)
{
	unsigned n = in->w2, vec = in->vec;
	bool sgn = (in->flags & DF_SIGNED) != 0;
	switch (in->op) {
	case I_LDK:
		LANES
			for (unsigned k = 0; k < vec; k++) {
				uint64_t off = (uint64_t)in->imm + (uint64_t)k * n;
				if (off + n > c->p->kparam_size)
					return interp_fail(c, INTERP_FAULT, in, L, "read beyond the parameters");
				R[in->v[k]] = load_bytes(c->p->kparams + off, n, sgn);
			}
		END
		return true;
	case I_LDP: case I_STP:
		LANES
			uint32_t psize = c->p->funcs[((struct frame_hdr *)(L->stack + L->frame))->func].param_size;
			for (unsigned k = 0; k < vec; k++) {
				uint64_t off = (uint64_t)in->imm + (uint64_t)k * n;
				if (off + n > psize)
					return interp_fail(c, INTERP_FAULT, in, L, "access beyond the parameters");
				if (in->op == I_LDP)
					R[in->v[k]] = load_bytes(L->P + off, n, sgn);
				else
					store_bytes(L->P + off, n, R[in->v[k]]);
			}
		END
		return true;
	case I_LD: case I_ST: {
		bool st = in->op == I_ST;
		unsigned total = n * vec;
		LANES
			uint64_t a = R[in->a] + (uint64_t)in->imm;
			uint8_t *p = interp_mem_at(c, L, in, in->space, a, total, st ? IM_WRITE : IM_READ);
			if (!p)
				return false;
			for (unsigned k = 0; k < vec; k++) {
				if (st)
					store_bytes(p + k * n, n, R[in->v[k]]);
				else
					R[in->v[k]] = load_bytes(p + k * n, n, sgn);
			}
		END
		return true;
	}
	case I_ATOM:
		LANES
			uint64_t a = R[in->a] + (uint64_t)in->imm;
			uint8_t *p = interp_mem_at(c, L, in, in->space, a, n, in->sub2 ? IM_RED : IM_ATOM);
			if (!p)
				return false;
			uint64_t old = load_bytes(p, n, false);
			store_bytes(p, n, atom_apply(in, old, R[in->b], in->c != NOREG ? R[in->c] : 0));
			R[in->d] = old;
		END
		return true;
	default:
		return interp_fail(c, INTERP_UNSUPPORTED, in, NULL, "internal: not a memory op");
	}
}

static uint64_t sreg(struct ictx *c, const struct lane *L, const struct dinst *in)
{
	unsigned k = in->sub2;
	switch (in->sub) {
	case S_TID: return L->tid[k];
	case S_NTID: return c->block[k];
	case S_CTAID: return c->ctaid[k];
	case S_NCTAID: return c->grid[k];
	case S_LANEID: return L->lane;
	case S_WARPID: return L->warp;
	case S_NWARPID: return c->nwarps;
	case S_LANEMASK_EQ: return UINT32_C(1) << L->lane;
	case S_LANEMASK_LT: return (UINT32_C(1) << L->lane) - 1;
	case S_LANEMASK_LE: return ((UINT64_C(2) << L->lane) - 1) & 0xffffffffu;
	case S_LANEMASK_GT: return ~((UINT64_C(2) << L->lane) - 1) & 0xffffffffu;
	case S_LANEMASK_GE: return ~((UINT64_C(1) << L->lane) - 1) & 0xffffffffu;
	case S_CLOCK: return c->steps;
	case S_DSMEM: return c->p->dyn_shared;
	case S_TSMEM: return c->p->shared_size;
	default: return 0;
	}
}

/* Moves: of registers, of vectors packed and unpacked, of special
 * registers and of the active mask. */
static bool exec_move(struct ictx *c, struct lane *lanes, const struct dinst *in, uint32_t mask)
{
	uint64_t wm = wmask(in->w);
	switch (in->op) {
	case I_MOV: LANES R[in->d] = R[in->a] & wm; END return true;
	case I_PACK:
		LANES
			uint64_t v = 0;
			for (unsigned k = 0; k < in->vec; k++)
				v |= (R[in->v[k]] & wmask(in->w2)) << (k * in->w2);
			R[in->d] = v & wm;
		END
		return true;
	case I_UNPACK:
		LANES
			uint64_t v = R[in->a];
			for (unsigned k = 0; k < in->vec; k++)
				R[in->v[k]] = (v >> (k * in->w2)) & wmask(in->w2);
		END
		return true;
	case I_SREG: LANES R[in->d] = sreg(c, L, in); END return true;
	case I_ACTIVEMASK: LANES R[in->d] = mask; END return true;
	default:
		return interp_fail(c, INTERP_UNSUPPORTED, in, NULL, "internal: not a move");
	}
}

/* Integer arithmetic. */
static bool exec_int(struct ictx *c, struct lane *lanes, const struct dinst *in, uint32_t mask)
{
	unsigned w = in->w;
	uint64_t wm = wmask(w);
	bool sgn = (in->flags & DF_SIGNED) != 0;
	switch (in->op) {
	case I_ADD:
		if (in->flags & DF_SAT) {
			LANES
				int64_t r = sext(R[in->a], 32) + sext(R[in->b], 32);
				r = r > INT32_MAX ? INT32_MAX : r < INT32_MIN ? INT32_MIN : r;
				R[in->d] = (uint64_t)r & 0xffffffffu;
			END
		} else if (in->d2 != NOREG) {
			LANES
				uint64_t a = R[in->a] & wm, b = R[in->b] & wm, r = (a + b) & wm;
				R[in->d2] = r < a;
				R[in->d] = r;
			END
		} else {
			LANES R[in->d] = (R[in->a] + R[in->b]) & wm; END
		}
		return true;
	case I_SUB:
		if (in->flags & DF_SAT) {
			LANES
				int64_t r = sext(R[in->a], 32) - sext(R[in->b], 32);
				r = r > INT32_MAX ? INT32_MAX : r < INT32_MIN ? INT32_MIN : r;
				R[in->d] = (uint64_t)r & 0xffffffffu;
			END
		} else if (in->d2 != NOREG) {
			LANES
				uint64_t a = R[in->a] & wm, b = R[in->b] & wm;
				R[in->d2] = a < b;
				R[in->d] = (a - b) & wm;
			END
		} else {
			LANES R[in->d] = (R[in->a] - R[in->b]) & wm; END
		}
		return true;
	case I_ADDC: case I_SUBC:
		LANES
			uint64_t a = R[in->a] & wm, b = R[in->b] & wm, ci = R[in->c] & 1, r;
			if (in->op == I_ADDC) {
				r = (a + b + ci) & wm;
				R[in->d2] = r < a || (ci && r == a);
			} else {
				r = (a - b - ci) & wm;
				R[in->d2] = a < b || (ci && a == b);
			}
			R[in->d] = r;
		END
		return true;
	case I_MUL_LO: LANES R[in->d] = (R[in->a] * R[in->b]) & wm; END return true;
	case I_MAD_LO: LANES R[in->d] = (R[in->a] * R[in->b] + R[in->c]) & wm; END return true;
	case I_MUL_HI: case I_MAD_HI:
		LANES
			uint64_t r;
			if (sgn) {
				__int128 p = (__int128)sext(R[in->a], w) * sext(R[in->b], w);
				r = (uint64_t)(p >> w);
			} else {
				unsigned __int128 p = (unsigned __int128)(R[in->a] & wm) * (R[in->b] & wm);
				r = (uint64_t)(p >> w);
			}
			if (in->op == I_MAD_HI)
				r += R[in->c];
			R[in->d] = r & wm;
		END
		return true;
	case I_MUL_WIDE: case I_MAD_WIDE:
		LANES
			uint64_t r = sgn ? (uint64_t)(sext(R[in->a], w) * sext(R[in->b], w))
			                 : (R[in->a] & wm) * (R[in->b] & wm);
			if (in->op == I_MAD_WIDE)
				r += R[in->c];
			R[in->d] = r & wmask(2 * w);
		END
		return true;
	case I_MUL24: case I_MAD24:
		LANES
			uint64_t r;
			if (sgn) {
				int64_t p = sext(R[in->a], 24) * sext(R[in->b], 24);
				r = (in->flags & DF_HI) ? (uint64_t)(p >> 16) : (uint64_t)p;
			} else {
				uint64_t p = (R[in->a] & 0xffffff) * (R[in->b] & 0xffffff);
				r = (in->flags & DF_HI) ? p >> 16 : p;
			}
			if (in->op == I_MAD24)
				r += R[in->c];
			R[in->d] = r & wm;
		END
		return true;
	case I_SAD:
		LANES
			uint64_t a = R[in->a] & wm, b = R[in->b] & wm, d;
			if (sgn)
				d = sext(a, w) < sext(b, w) ? b - a : a - b;
			else
				d = a < b ? b - a : a - b;
			R[in->d] = (R[in->c] + d) & wm;
		END
		return true;
	case I_DIV: LANES R[in->d] = idiv(R[in->a], R[in->b], w, sgn, false); END return true;
	case I_REM: LANES R[in->d] = idiv(R[in->a], R[in->b], w, sgn, true); END return true;
	case I_ABS:
		LANES int64_t a = sext(R[in->a], w); R[in->d] = (a < 0 ? 0 - (uint64_t)a : (uint64_t)a) & wm; END
		return true;
	case I_NEG: LANES R[in->d] = (0 - R[in->a]) & wm; END return true;
	case I_MIN: case I_MAX:
		LANES
			uint64_t a = R[in->a] & wm, b = R[in->b] & wm;
			bool lt = sgn ? sext(a, w) < sext(b, w) : a < b;
			R[in->d] = (lt != (in->op == I_MAX)) ? a : b;
		END
		return true;
	default:
		return interp_fail(c, INTERP_UNSUPPORTED, in, NULL, "internal: not an integer op");
	}
}

/* Bit operations. */
static bool exec_bits(struct ictx *c, struct lane *lanes, const struct dinst *in, uint32_t mask)
{
	unsigned w = in->w;
	uint64_t wm = wmask(w);
	bool sgn = (in->flags & DF_SIGNED) != 0;
	switch (in->op) {
	case I_AND: LANES R[in->d] = R[in->a] & R[in->b] & wm; END return true;
	case I_OR: LANES R[in->d] = (R[in->a] | R[in->b]) & wm; END return true;
	case I_XOR: LANES R[in->d] = (R[in->a] ^ R[in->b]) & wm; END return true;
	case I_NOT: LANES R[in->d] = ~R[in->a] & wm; END return true;
	case I_CNOT: LANES R[in->d] = (R[in->a] & wm) == 0; END return true;
	case I_SHL:
		LANES uint64_t s = R[in->b] & 0xffffffffu; R[in->d] = s >= w ? 0 : (R[in->a] << s) & wm; END
		return true;
	case I_SHR:
		LANES
			uint64_t s = R[in->b] & 0xffffffffu;
			if (sgn) {
				int64_t a = sext(R[in->a], w);
				R[in->d] = (uint64_t)(a >> (s >= w ? w - 1 : s)) & wm;
			} else {
				R[in->d] = s >= w ? 0 : (R[in->a] & wm) >> s;
			}
		END
		return true;
	case I_POPC: LANES R[in->d] = (uint64_t)__builtin_popcountll(R[in->a] & wm); END return true;
	case I_CLZ:
		LANES uint64_t a = R[in->a] & wm; R[in->d] = a ? (uint64_t)__builtin_clzll(a) - (64 - w) : w; END
		return true;
	case I_BREV: LANES R[in->d] = brev(R[in->a], w); END return true;
	case I_BFIND: LANES R[in->d] = bfind(R[in->a], w, sgn, in->flags & DF_HI); END return true;
	case I_PRMT:
		LANES R[in->d] = prmt((uint32_t)R[in->a], (uint32_t)R[in->b], (uint32_t)R[in->c], in->sub); END
		return true;
	case I_BFE: LANES R[in->d] = bfe(R[in->a] & wm, R[in->b], R[in->c], w, sgn); END return true;
	case I_BFI: LANES R[in->d] = bfi(R[in->a], R[in->b] & wm, R[in->c], R[in->e], w); END return true;
	case I_LOP3: LANES R[in->d] = lop3(R[in->a], R[in->b], R[in->c], (unsigned)in->imm); END return true;
	case I_SHF:
		LANES
			uint64_t v = ((R[in->b] & 0xffffffffu) << 32) | (R[in->a] & 0xffffffffu);
			uint64_t n = R[in->c] & 0xffffffffu;
			n = in->sub ? (n > 32 ? 32 : n) : (n & 31);
			R[in->d] = (in->flags & DF_HI) ? (v >> n) & 0xffffffffu : ((v << n) >> 32) & 0xffffffffu;
		END
		return true;
	default:
		return interp_fail(c, INTERP_UNSUPPORTED, in, NULL, "internal: not a bit op");
	}
}

/* Comparisons and selections. */
static bool exec_cmp(struct ictx *c, struct lane *lanes, const struct dinst *in, uint32_t mask)
{
	unsigned w = in->w;
	bool sgn = (in->flags & DF_SIGNED) != 0;
	switch (in->op) {
	case I_SETP_I: case I_SETP_F: case I_SET_I: case I_SET_F: {
		bool f = in->op == I_SETP_F || in->op == I_SET_F, f64 = in->flags & DF_F64;
		bool set = in->op == I_SET_I || in->op == I_SET_F;
		LANES
			bool r;
			if (f) {
				double a = f64 ? D(R[in->a]) : F(R[in->a]), b = f64 ? D(R[in->b]) : F(R[in->b]);
				if ((in->flags & DF_FTZ) && !f64) {
					a = ftz((float)a);
					b = ftz((float)b);
				}
				r = fcmp(in->sub, a, b);
			} else {
				r = icmp(in->sub, R[in->a], R[in->b], w, sgn);
			}
			uint64_t cv = in->c != NOREG ? R[in->c] : 0;
			bool p = combine(in->sub2, r, cv);
			if (set) {
				R[in->d] = (in->flags & DF_HI) ? (p ? BF(1.0f) : 0) : (p ? wmask(in->w2) : 0);
			} else {
				R[in->d] = p;
				if (in->d2 != NOREG)
					R[in->d2] = combine(in->sub2, !r, cv);
			}
		END
		return true;
	}
	case I_SELP:
		LANES R[in->d] = (((R[in->c] & 1) != 0) != (in->sub2 != 0)) ? R[in->a] : R[in->b]; END
		return true;
	case I_SLCT_I: LANES R[in->d] = sext(R[in->c], 32) >= 0 ? R[in->a] : R[in->b]; END return true;
	case I_SLCT_F: LANES R[in->d] = F(R[in->c]) >= 0.0f ? R[in->a] : R[in->b]; END return true;
	default:
		return interp_fail(c, INTERP_UNSUPPORTED, in, NULL, "internal: not a comparison");
	}
}

/* Conversions of type and of address space. */
static bool exec_cvt(struct ictx *c, struct lane *lanes, const struct dinst *in, uint32_t mask)
{
	uint64_t wm = wmask(in->w);
	switch (in->op) {
	case I_CVT: LANES R[in->d] = cvt(in, R[in->a]); END return true;
	case I_CVTA:
		LANES
			uint64_t a = R[in->a];
			uint64_t win = in->space == PS_SHARED ? IW_SHARED : in->space == PS_LOCAL ? IW_LOCAL : 0;
			a = in->to ? a - win : a + win;
			R[in->d] = a & wm;
		END
		return true;
	default:
		return interp_fail(c, INTERP_UNSUPPORTED, in, NULL, "internal: not a conversion");
	}
}

bool interp_exec(struct ictx *c, struct lane *lanes, const struct dinst *in, uint32_t mask)
{
	if (in->guard != NOREG) {
		uint32_t g = 0;
		for (uint32_t m_ = mask; m_; m_ &= m_ - 1) {
			unsigned l = (unsigned)__builtin_ctz(m_);
			if (((lanes[l].R[in->guard] & 1) != 0) != (in->guard_neg != 0))
				g |= UINT32_C(1) << l;
		}
		mask = g;
		if (!mask)
			return true;
	}
	/* each family is a range of enum iop (interp-impl.h) */
	unsigned op = in->op;
	if (op == I_NOP)
		return true;
	if (op == I_UNSUPPORTED)
		return interp_fail(c, INTERP_UNSUPPORTED, in, NULL, "%s",
		                   (uint64_t)in->imm < c->p->nwhy ? c->p->why[in->imm] : "unsupported");
	if (op >= I_MOV && op <= I_ACTIVEMASK)
		return exec_move(c, lanes, in, mask);
	if (op >= I_ADD && op <= I_MAX)
		return exec_int(c, lanes, in, mask);
	if (op >= I_AND && op <= I_SHF)
		return exec_bits(c, lanes, in, mask);
	if (op >= I_FADD && op <= I_TESTP)
		return exec_float(c, lanes, in, mask);
	if (op >= I_SETP_I && op <= I_SLCT_F)
		return exec_cmp(c, lanes, in, mask);
	if (op == I_CVT || op == I_CVTA)
		return exec_cvt(c, lanes, in, mask);
	if (op >= I_LD && op <= I_ATOM)
		return exec_mem(c, lanes, in, mask);
	return interp_fail(c, INTERP_UNSUPPORTED, in, NULL, "internal: opcode %u", in->op);
}
