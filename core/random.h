/* SPDX-License-Identifier: MIT */
/*
 * The harness's one pseudo-random generator and the derivations of child
 * seeds from a run's seed. Header-only, in core/ because workloads/ may
 * include nothing else and stress/, the CLI and the tests use the same
 * streams. Nothing here reads a clock or an address: every stream is a
 * function of the seed alone, so a recorded seed replays.
 *
 * The formulas are frozen: a seeded bug's catalogue seed and every
 * recorded --seed name the operation streams they produce. A derivation
 * that needs another formula gets its own function here, never a copy of
 * the constants at the call site.
 */
#ifndef RT_CORE_RANDOM_H
#define RT_CORE_RANDOM_H

#include <stdint.h>

/* 2^64 / golden ratio: Weyl increment of SplitMix64, seed spreader. */
#define RT_GOLDEN64	0x9e3779b97f4a7c15ULL

/**
 * rt_rand() - the next number of the xorshift64* generator at @state
 * @state: the generator; 0 is taken as RT_GOLDEN64 (xorshift never leaves 0)
 *
 * Context: any; @state belongs to the caller (one per thread).
 * Return: 64 pseudo-random bits.
 */
static inline uint64_t rt_rand(uint64_t *state)
{
	uint64_t x = *state ? *state : RT_GOLDEN64;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/**
 * rt_mix64() - SplitMix64 of @x: one step and its output function
 * @x: the value to mix
 *
 * Spreads nearby inputs (0, 1, 2, ...) over all 64 bits: the CI gate's
 * configuration seeds and its window rotation.
 * Return: the mixed value.
 */
static inline uint64_t rt_mix64(uint64_t x)
{
	x += RT_GOLDEN64;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/**
 * rt_seed_stream() - the state of stream @stream of the run seed @seed
 * @seed: the run's seed (--seed)
 * @stream: which stream: the engine numbers them (stress/engine.c)
 *
 * The engine's per-thread operation and perturbation streams, and the
 * `locks` torture's workers (stream 0 plus the worker's index).
 * Return: a generator state for rt_rand().
 */
static inline uint64_t rt_seed_stream(uint64_t seed, uint64_t stream)
{
	return seed * RT_GOLDEN64 + stream * 0xbf58476d1ce4e5b9ULL + 1;
}

/**
 * rt_seed_child() - child @k of the seed @seed, by exclusive or
 * @seed: the parent seed (a test's printed seed)
 * @k: the child's number (a thread's index plus one)
 *
 * The Check suites' per-thread generators (tests/rt_check.c's
 * rt_thread_rng()): a test's printed RT_SEED replays its threads.
 * Return: a generator state for rt_rand().
 */
static inline uint64_t rt_seed_child(uint64_t seed, uint64_t k)
{
	return seed ^ (k * RT_GOLDEN64);
}

#endif /* RT_CORE_RANDOM_H */
