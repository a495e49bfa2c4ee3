/* SPDX-License-Identifier: MIT */
/*
 * Failure artifacts: one JSON file per distinct failure signature in an
 * output directory (a repeat bumps its "count"), loaded back and checked
 * field by field by `replay` and `minimize`. The fields are listed in
 * docs/usage.md "Reproducing a failure".
 */
#ifndef RT_RESULTS_ARTIFACT_H
#define RT_RESULTS_ARTIFACT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* FNV-1a of @signature: names the artifact file, stable across runs. */
uint64_t rt_signature_hash(const char *signature);

/**
 * rt_artifact_save() - write failure artifact @art into @dir, deduplicated
 * @art: holds at least "kind" and "signature"; "count" is set here
 * @path, @len: receives the file's path (may be NULL)
 *
 * The file is DIR/failure-KIND-HASH.json. When it exists already with the
 * same signature, its count is carried over plus one and the rest is
 * replaced by @art. Written atomically. Not safe against another process
 * saving the same signature at the same instant (one count may be lost).
 *
 * Return: 1 for a new signature, 0 for a repeat, -errno (message printed).
 */
int rt_artifact_save(json_t *art, const char *dir, char *path, size_t len);

/* The failure kinds an artifact may carry, NULL-terminated. */
extern const char *const rt_failure_kinds[];

/**
 * rt_artifact_check() - check every field of failure artifact @art
 * @art: the parsed artifact
 * @name: how to name it in @err (its path)
 * @designs: the rmap designs "rmap" may name, NULL-terminated (the
 *	caller's: results knows nothing of core's design table)
 * @err, @errlen: receives one line, "artifact NAME: field 'F' must ...",
 *	naming the first bad field (no newline)
 *
 * Checks the fields of docs/usage.md "Reproducing a failure" (the schema of
 * rt_artifact_save()'s callers, schemas/failure.schema.json): the record's
 * "format_version" (absent: 1; refused when newer than this tool reads,
 * rt_record_check_format()), then presence, type, range and the known
 * values of each required field, "pct_depth" when "sched" is "pct", and
 * the shape of the optional "sites", "held", "stack" and "flight". Fields
 * it does not know are allowed (newer writers may add some).
 *
 * Context: pure; does not touch the file system.
 * Return: 0 when @art is a valid artifact, -EINVAL otherwise.
 */
int rt_artifact_check(const json_t *art, const char *name, const char *const designs[],
		      char *err, size_t errlen);

/**
 * rt_artifact_load() - read and check the failure artifact at @path
 * @path: a JSON file written by rt_artifact_save()
 * @designs: as for rt_artifact_check()
 * @err, @errlen: on failure, one line naming @path and what is wrong
 *	(no such file, a directory, unreadable, not JSON, another kind of
 *	record such as a run's, or the first bad field)
 *
 * Context: reads @path; no locks.
 * Return: the artifact (caller owns the reference), or NULL with @err set.
 */
json_t *rt_artifact_load(const char *path, const char *const designs[], char *err,
			 size_t errlen);

/**
 * rt_artifact_seed() - the artifact's "seed" as a number
 * @art: an artifact that passed rt_artifact_check() (its seed a decimal
 *	string)
 * Return: the seed (0 if @art has none).
 */
uint64_t rt_artifact_seed(const json_t *art);

#endif /* RT_RESULTS_ARTIFACT_H */
