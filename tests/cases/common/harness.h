/*
 * harness.h: host-side helpers shared by the test programs (each program
 * pair in tests/cases/NAME/{ref,opt}.cu is a standalone CUDA program).
 *
 * Inputs are filled with a fixed pseudo-random sequence; dirigo treats them
 * as symbolic, so the values only matter to a human running the program.
 */
#ifndef DIRIGO_TEST_HARNESS_H
#define DIRIGO_TEST_HARNESS_H

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call) do { \
	cudaError_t e_ = (call); \
	if (e_ != cudaSuccess) { \
		fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
		exit(1); \
	} \
} while (0)

static inline void fill_random(float *h, int n, unsigned seed)
{
	for (int i = 0; i < n; i++) {
		seed = seed * 1664525u + 1013904223u;
		h[i] = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
	}
}

/* Device buffer holding n random floats. */
static inline float *device_random(int n, unsigned seed)
{
	float *h = (float *)malloc(sizeof(float) * n), *d;
	fill_random(h, n, seed);
	CHECK(cudaMalloc(&d, sizeof(float) * n));
	CHECK(cudaMemcpy(d, h, sizeof(float) * n, cudaMemcpyHostToDevice));
	free(h);
	return d;
}

/* Copies n floats back and prints a checksum, as a real program would. */
static inline void fetch(const float *d, int n)
{
	float *h = (float *)malloc(sizeof(float) * n);
	CHECK(cudaMemcpy(h, d, sizeof(float) * n, cudaMemcpyDeviceToHost));
	double s = 0;
	for (int i = 0; i < n; i++)
		s += h[i];
	printf("checksum %g\n", s);
	free(h);
}

#endif
