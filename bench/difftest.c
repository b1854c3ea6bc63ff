/*
 * difftest: the baseline dirigo is compared against, KernelBench's
 * differential test, run on the CPU through the same concrete execution as
 * dreplay (engine/concrete.c: both whole programs run by the PTX
 * interpreter in float32).
 *
 *   difftest [--sets N] [--seed S] [--atol X] [--rtol X] [FILE.obl]
 *
 * Reads an obligation stream (dmerge's output, or any later stream).  For
 * each of N input sets (default 5, as KernelBench v0's correctness trials)
 * every shared input is filled with standard-normal float32 values, as
 * get_inputs() draws them with torch.randn; an input whose size is not a
 * multiple of 4 keeps its traced bytes.  Both programs run on the set and
 * every output is compared as float32 like torch.allclose(opt, ref,
 * atol, rtol) (defaults 1e-2 and 1e-2, KernelBench v0): |opt - ref| <=
 * atol + rtol * |ref|, NaN never close.  A program that faults counts as
 * "fault": the interpreter checks every access against its buffer, where
 * a GPU run (and so KernelBench) often does not notice an access past an
 * allocation's end; run-corpus reports faults apart from mismatches.
 *
 * Prints one JSON line: result ("buggy" when some set is not close,
 * "fault" when a program faulted, "correct" otherwise, "unsupported" when
 * the interpreter cannot run a program), the set that failed, mismatching
 * elements, the first mismatch, and the CPU seconds spent.  Exit 1 buggy
 * or fault, 0 correct, 3 unsupported, 2 trouble.
 *
 * Built by bench/run-corpus with cc against the three archives under build/.
 */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/concrete.h"
#include "libcommon/diag.h"
#include "formats/obligation.h"
#include "libcommon/opt.h"
#include "libcommon/stream.h"

static const char usage[] =
	"usage: difftest [--sets N] [--seed S] [--atol X] [--rtol X] [FILE.obl]\n";

static uint64_t rng;

static uint64_t next(void)          /* splitmix64 */
{
	uint64_t z = (rng += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static double uniform(void)         /* (0, 1) */
{
	return ((double)(next() >> 11) + 0.5) / 9007199254740992.0;
}

static float normal(void)           /* Box-Muller */
{
	return (float)(sqrt(-2.0 * log(uniform())) * cos(2.0 * M_PI * uniform()));
}

static double cpu_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "sets", required_argument, 0, 'n' },
		{ "seed", required_argument, 0, 's' },
		{ "atol", required_argument, 0, 'a' },
		{ "rtol", required_argument, 0, 'r' },
		{ 0, 0, 0, 0 },
	};
	unsigned sets = 5;
	double atol = 1e-2, rtol = 1e-2;
	rng = 42;
	int c;
	diag_set_prog("difftest");
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': sets = (unsigned)opt_count("--sets", optarg, 0, UINT_MAX); break;
		case 's': rng = opt_count("--seed", optarg, 0, UINT64_MAX); break;
		case 'a': atol = opt_number("--atol", optarg, 0, true); break;
		case 'r': rtol = opt_number("--rtol", optarg, 0, true); break;
		default: opt_usage(usage, EXIT_TROUBLE);
		}
	}
	double t0 = cpu_seconds();
	struct obligation o;
	obligation_init(&o);
	struct stream_in *in = stream_in_open((const char *const *)argv + optind, argc - optind);
	struct record rec;
	int k;
	while ((k = stream_in_next(in, &rec)) > 0)
		if (obligation_take(&o, &rec) < 0) {
			k = -1;
			break;
		}
	const char *file = optind < argc ? argv[argc - 1] : "-";
	if (k != 0 || !obligation_check(&o, file)) {
		stream_in_close(in);
		obligation_release(&o);
		return EXIT_TROUBLE;
	}
	stream_in_close(in);
	size_t nin = o.inputs.len;
	uint8_t **bytes = calloc(nin + 1, sizeof *bytes);
	const char *result = "correct";
	unsigned failed = 0;
	uint64_t mismatches = 0;
	char first[640] = "";
	for (unsigned s = 0; s < sets && !failed; s++) {
		for (size_t i = 0; i < nin; i++) {
			const struct obl_input *x = &o.inputs.items[i];
			free(bytes[i]);
			bytes[i] = calloc(x->bytes + 4, 1);
			if (x->bytes % 4 == 0) {
				for (uint64_t e = 0; e < x->bytes / 4; e++) {
					float f = normal();
					memcpy(bytes[i] + 4 * e, &f, 4);
				}
			} else if (x->data) {
				memcpy(bytes[i], x->data, x->ndata < x->bytes ? x->ndata : x->bytes);
			}
		}
		struct replay_result res[2];
		char err[512];
		bool ran[2];
		for (int p = 0; p < 2; p++) {
			ran[p] = replay_program(&o, (uint32_t)p, (const void *const *)bytes, NULL, &res[p], err,
			                        sizeof err);
			if (!ran[p]) {
				if (res[p].status == INTERP_FAULT) {
					result = "fault";
					failed = s + 1;
					snprintf(first, sizeof first, "program %d faulted: %s", p, err);
				} else {
					result = "unsupported";
					failed = s + 1;
					snprintf(first, sizeof first, "program %d not run: %s", p, err);
				}
				if (p == 1)
					replay_result_release(&res[0]);
				break;
			}
		}
		if (failed)
			break;
		for (uint32_t q = 0; q < res[0].nouts; q++) {
			uint64_t n = res[0].outs[q].bytes / 4;
			for (uint64_t e = 0; e < n; e++) {
				float a, b;
				memcpy(&a, res[0].outs[q].data + 4 * e, 4);
				memcpy(&b, res[1].outs[q].data + 4 * e, 4);
				bool close = !isnan(a) && !isnan(b) &&
				             (a == b || fabs((double)b - a) <= atol + rtol * fabs((double)a));
				if (!close) {
					if (!mismatches)
						snprintf(first, sizeof first, "output %u element %llu: ref %.9g, opt %.9g", q,
						         (unsigned long long)e, a, b);
					mismatches++;
				}
			}
		}
		replay_result_release(&res[0]);
		replay_result_release(&res[1]);
		if (mismatches) {
			result = "buggy";
			failed = s + 1;
		}
	}
	for (size_t i = 0; i < nin; i++)
		free(bytes[i]);
	free(bytes);
	obligation_release(&o);
	printf("{\"result\":\"%s\",\"sets\":%u,\"failed_set\":%u,\"mismatches\":%llu,\"first\":\"", result, sets,
	       failed, (unsigned long long)mismatches);
	for (const char *p = first; *p; p++)
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if ((unsigned char)*p >= 0x20)
			putchar(*p);
	printf("\",\"cpu_s\":%.3f}\n", cpu_seconds() - t0);
	int status = strcmp(result, "correct") == 0 ? EXIT_OK
	           : strcmp(result, "unsupported") == 0 ? EXIT_UNDECIDED : EXIT_BUG;
	return close_stdout(status);
}
