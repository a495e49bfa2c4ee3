/* SPDX-License-Identifier: MIT */
/*
 * Result records: JSON objects (jansson) written atomically, and the
 * metadata every record carries (tool version, git revision, machine).
 * Knows nothing of core's internals.
 */
#ifndef RT_RESULTS_RECORD_H
#define RT_RESULTS_RECORD_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

/*
 * The format every record this tool writes declares in "format_version"
 * (an integer), next to "record", its kind ("run", "failure", "ci", ...).
 * Records of version 1 carry neither: their kind is in "kind" (except a
 * failure artifact, whose "kind" is already the failure's kind) and a run,
 * locks or scale record's seed is a signed integer. Version 2: "record",
 * "format_version", seeds as strings of the unsigned decimal value, and
 * "kind" only ever a failure's kind. The schemas are schemas/<kind>.schema.json.
 */
#define RT_RECORD_FORMAT 2

/**
 * rt_record_write() - write @rec to @path atomically (temp file + rename)
 * @path: target; "-" means stdout
 * Return: 0, or -errno with a message already printed naming @path.
 */
int rt_record_write(json_t *rec, const char *path);

/**
 * rt_record_print_line() - print @rec on stdout as one line (JSON Lines)
 * @rec: a record
 * Return: 0, or -EIO.
 */
int rt_record_print_line(const json_t *rec);

/**
 * rt_file_write_atomic() - write @path atomically: @emit fills a temp file
 * next to it (fsync'ed), which is then renamed over @path
 * @emit: writes the content to its FILE; returns 0 or -errno
 * Return: 0, or -errno with a message already printed naming @path.
 */
int rt_file_write_atomic(const char *path, int (*emit)(FILE *f, void *arg), void *arg);

/**
 * rt_record_new() - a new record of kind @record
 * @record: the record's kind, its "record" field ("run", "failure", ...)
 *
 * Holds "record", "format_version" (RT_RECORD_FORMAT), the tool's version,
 * git revision, the date and the machine (cores, CPU model).
 *
 * Return: the new object (caller owns the reference).
 */
json_t *rt_record_new(const char *record);

/**
 * rt_record_kind() - the kind of record @rec, of any format version
 * @rec: a parsed record
 * Return: its "record", or a version 1 record's "kind"; NULL if neither.
 */
const char *rt_record_kind(const json_t *rec);

/**
 * rt_record_check_format() - whether this tool reads @rec's format version
 * @rec: a parsed record
 * @name: how to name it in @err (its path)
 * @err, @errlen: receives one line naming @name and the version it has
 *	and the newest this tool reads (no newline)
 *
 * A record without "format_version" is of version 1 and is read.
 *
 * Return: 0 when @rec's version is 1..RT_RECORD_FORMAT, -EINVAL otherwise.
 */
int rt_record_check_format(const json_t *rec, const char *name, char *err, size_t errlen);

/**
 * rt_seed_json() - @seed as records carry it
 * @seed: any 64-bit seed
 * Return: a new JSON string of @seed's unsigned decimal value.
 */
json_t *rt_seed_json(uint64_t seed);

/**
 * rt_seed_parse() - a seed from its unsigned decimal string
 * @s: decimal digits only (no sign, space or base prefix); may be NULL
 * @seed: receives the value
 * Return: 0, or -EINVAL when @s is not such a string or exceeds 64 bits.
 */
int rt_seed_parse(const char *s, uint64_t *seed);

/**
 * rt_seed_of() - a seed from its JSON value, of any format version
 * @v: a string of decimal digits, or (version 1 records) an integer: a
 *	negative one is the seed written through a signed 64-bit cast
 * @seed: receives the value
 * Return: 0, or -EINVAL when @v is neither (or NULL).
 */
int rt_seed_of(const json_t *v, uint64_t *seed);

/* "0.1.0 (<git describe>)" and the git revision alone. */
const char *rt_version(void);
const char *rt_git_rev(void);

/* The number of online CPUs and the CPU model name of this machine. */
int rt_machine_cores(void);
const char *rt_machine_model(void);

#endif /* RT_RESULTS_RECORD_H */
