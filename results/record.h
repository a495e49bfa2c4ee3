/* SPDX-License-Identifier: MIT */
/*
 * Result records: JSON objects (jansson) written atomically, and the
 * metadata every record carries (tool version, git revision, machine).
 * Knows nothing of core's internals.
 */
#ifndef RT_RESULTS_RECORD_H
#define RT_RESULTS_RECORD_H

#include <stdio.h>

#include <jansson.h>

/**
 * rt_record_write() - write @rec to @path atomically (temp file + rename)
 * @path: target; "-" means stdout
 * Return: 0, or -errno with a message already printed naming @path.
 */
int rt_record_write(json_t *rec, const char *path);

/**
 * rt_file_write_atomic() - write @path atomically: @emit fills a temp file
 * next to it (fsync'ed), which is then renamed over @path
 * @emit: writes the content to its FILE; returns 0 or -errno
 * Return: 0, or -errno with a message already printed naming @path.
 */
int rt_file_write_atomic(const char *path, int (*emit)(FILE *f, void *arg), void *arg);

/* A new object holding tool, version, git revision, date, cores, cpu model. */
json_t *rt_record_new(const char *kind);

/* "0.1.0 (<git describe>)" and the git revision alone. */
const char *rt_version(void);
const char *rt_git_rev(void);

/* The number of online CPUs and the CPU model name of this machine. */
int rt_machine_cores(void);
const char *rt_machine_model(void);

#endif /* RT_RESULTS_RECORD_H */
