/* SPDX-License-Identifier: MIT */
/*
 * The harness's sanitizer variants: find (or build, with meson and ninja)
 * the TSan and ASan+UBSan builds of rmaptorture, and the environment to
 * run them under, so that `run --build tsan`, `replay` and the CI gate can
 * run the same command in another build and capture its reports.
 */
#ifndef RT_SANITIZERS_VARIANT_H
#define RT_SANITIZERS_VARIANT_H

#include <stdbool.h>
#include <stddef.h>

/**
 * rt_variant_path() - the rmaptorture binary of build @build
 * @build: "plain", "tsan" or "asan"
 * @path, @len: receives the absolute path
 * @build_if_missing: configure and build it (build, build-tsan, build-asan
 *	next to the source tree) when it is not there; progress on stderr
 * Return: 0, -ENOENT when missing and not built, -EINVAL for an unknown
 * build, or -EIO when building failed (message printed).
 */
int rt_variant_path(const char *build, char *path, size_t len, bool build_if_missing);

/**
 * rt_variant_setenv() - set TSAN_OPTIONS / ASAN_OPTIONS / UBSAN_OPTIONS
 * @build: "tsan" or "asan" ("plain": nothing)
 * @log_prefix: the sanitizer's log_path (reports land in LOG_PREFIX.PID)
 *
 * Sets what the capture needs (log_path, exitcode=66, halt_on_error as
 * fits) in this process's environment, to be inherited by a child it then
 * runs. Also sets RT_FLIGHT_LOG=LOG_PREFIX.flight, where the child's
 * report hooks append its flight recorder dumps. Nothing else: what makes
 * a run correct (the suppressions, history_size, ...) is built into the
 * sanitized binaries (sanitizers/defaults).
 *
 * The user's own *SAN_OPTIONS (as found at the first call) are kept: each
 * variable is USER:REQUIRED, and a later option wins, so the user may
 * retune the binary's defaults but not what the capture depends on
 * (log_path, exitcode=66, halt_on_error). TSan runs with halt_on_error=0
 * (one run reports every distinct race), ASan and UBSan halt at the first
 * report. Use a fresh @log_prefix per run (or rt_sanitizer_logs_remove()
 * it first): the hooks append.
 *
 * Context: not thread-safe (setenv); call before spawning the child.
 */
void rt_variant_setenv(const char *build, const char *log_prefix);

#endif /* RT_SANITIZERS_VARIANT_H */
