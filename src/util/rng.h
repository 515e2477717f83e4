/* SPDX-License-Identifier: MIT */
/*
 * rng.h - the two small random number generators of diskproof, in one place:
 * xorshift64 (the workload's stream: pages, mixes, arrivals) and splitmix64
 * (the sim engine's device model and preconditioning). Both are fixed by a
 * seed, so a simulated run is reproducible bit for bit; the algorithms and
 * constants must never change (the golden runs depend on every draw).
 *
 * static inline: they sit on the per-I/O path of the workers.
 */
#ifndef DISKPROOF_UTIL_RNG_H
#define DISKPROOF_UTIL_RNG_H

#include <stdint.h>

/* 2^64 / the golden ratio: splitmix64's increment, and the multiplier that
 * spreads the profile's seed over the workers' streams */
#define RNG_GOLDEN 0x9e3779b97f4a7c15ULL

/* xorshift64 (Marsaglia, shifts 13, 7, 17): period 2^64 - 1 over a nonzero
 * state; a zero state stays zero, so seeds are never 0. */
static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* The top 53 bits of v as a double in [0, 1) (exact: 2^-53 steps). */
static inline double rng_bits_unit(uint64_t v)
{
	return (double)(v >> 11) * (1.0 / 9007199254740992.0);
}

/* A uniform double in [0, 1) from the xorshift64 stream. */
static inline double rng_unit(uint64_t *s)
{
	return rng_bits_unit(rng_next(s));
}

/* splitmix64's finalizer multipliers (variant 13), also used by the page
 * payload's vectorised copies of the stream (page/page.c) */
#define RNG_SPLITMIX_MUL1 0xbf58476d1ce4e5b9ULL
#define RNG_SPLITMIX_MUL2 0x94d049bb133111ebULL

/* splitmix64 (Steele, Lea, Flood): any state, the golden-ratio increment,
 * then the variant-13 finalizer. */
static inline uint64_t rng_splitmix_next(uint64_t *x)
{
	uint64_t z = (*x += RNG_GOLDEN);

	z = (z ^ (z >> 30)) * RNG_SPLITMIX_MUL1;
	z = (z ^ (z >> 27)) * RNG_SPLITMIX_MUL2;
	return z ^ (z >> 31);
}

/* A uniform double in [0, 1) from the splitmix64 stream. */
static inline double rng_splitmix_unit(uint64_t *x)
{
	return rng_bits_unit(rng_splitmix_next(x));
}

/* Uniform in [0, n) from the splitmix64 stream: the high half of a 64x64
 * product (bias below n / 2^64). */
static inline uint64_t rng_splitmix_below(uint64_t *x, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rng_splitmix_next(x) * n) >> 64);
}

#endif
