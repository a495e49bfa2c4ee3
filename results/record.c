// SPDX-License-Identifier: MIT
#include "record.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef RT_VERSION
#define RT_VERSION "unknown"
#endif
#include "version.h"

const char *rt_version(void)
{
	return RT_VERSION " (" RT_GIT_REV ")";
}

const char *rt_git_rev(void)
{
	return RT_GIT_REV;
}

int rt_machine_cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

const char *rt_machine_model(void)
{
	static char model[128];
	FILE *f;
	char line[256];

	if (model[0])
		return model;
	snprintf(model, sizeof(model), "unknown");
	f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return model;
	while (fgets(line, sizeof(line), f)) {
		char *colon;

		if (strncmp(line, "model name", 10) || !(colon = strchr(line, ':')))
			continue;
		colon += 1 + strspn(colon + 1, " \t");
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(model, sizeof(model), "%s", colon);
		break;
	}
	fclose(f);
	return model;
}

json_t *rt_record_new(const char *record)
{
	char date[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return json_pack("{s:s, s:i, s:s, s:s, s:s, s:{s:i, s:s}}",
			 "record", record,
			 "format_version", RT_RECORD_FORMAT,
			 "version", RT_VERSION,
			 "git", RT_GIT_REV,
			 "date", date,
			 "machine", "cores", rt_machine_cores(),
			 "model", rt_machine_model());
}

const char *rt_record_kind(const json_t *rec)
{
	const char *kind = json_string_value(json_object_get(rec, "record"));

	return kind ? kind : json_string_value(json_object_get(rec, "kind"));
}

int rt_record_check_format(const json_t *rec, const char *name, char *err, size_t errlen)
{
	const json_t *v = json_object_get(rec, "format_version");

	if (!v)
		return 0;
	if (json_is_integer(v) && json_integer_value(v) >= 1 &&
	    json_integer_value(v) <= RT_RECORD_FORMAT)
		return 0;
	if (json_is_integer(v) && json_integer_value(v) > RT_RECORD_FORMAT)
		snprintf(err, errlen, "%s: record format_version %" JSON_INTEGER_FORMAT
			 " is newer than this rmaptorture reads (1 to %d): use a newer rmaptorture",
			 name, json_integer_value(v), RT_RECORD_FORMAT);
	else
		snprintf(err, errlen, "%s: field 'format_version' must be an integer in [1, %d]",
			 name, RT_RECORD_FORMAT);
	return -EINVAL;
}

json_t *rt_seed_json(uint64_t seed)
{
	char s[32];

	snprintf(s, sizeof(s), "%" PRIu64, seed);
	return json_string(s);
}

int rt_seed_parse(const char *s, uint64_t *seed)
{
	uint64_t v = 0;

	if (!s || !*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*seed = v;
	return 0;
}

int rt_seed_of(const json_t *v, uint64_t *seed)
{
	if (json_is_integer(v)) {
		*seed = (uint64_t)json_integer_value(v);
		return 0;
	}
	return rt_seed_parse(json_string_value(v), seed);
}

int rt_file_write_atomic(const char *path, int (*emit)(FILE *f, void *arg), void *arg)
{
	char tmp[4096];
	FILE *f;
	int err;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= sizeof(tmp)) {
		fprintf(stderr, "rmaptorture: %s: path too long\n", path);
		return -ENAMETOOLONG;
	}
	f = fopen(tmp, "w");
	if (!f) {
		err = errno;
		fprintf(stderr, "rmaptorture: cannot write %s: %s\n", path, strerror(err));
		return -err;
	}
	errno = 0;
	if (emit(f, arg) || fflush(f) || fsync(fileno(f))) {
		err = errno ? errno : EIO;
		fclose(f);
		unlink(tmp);
		fprintf(stderr, "rmaptorture: cannot write %s: %s\n", path, strerror(err));
		return -err;
	}
	if (fclose(f) || rename(tmp, path)) {
		err = errno;
		unlink(tmp);
		fprintf(stderr, "rmaptorture: cannot write %s: %s\n", path, strerror(err));
		return -err;
	}
	return 0;
}

static int emit_json(FILE *f, void *rec)
{
	if (json_dumpf(rec, f, JSON_INDENT(2) | JSON_SORT_KEYS) < 0 || fputc('\n', f) == EOF)
		return -EIO;
	return 0;
}

int rt_record_print_line(const json_t *rec)
{
	int err = 0;

	if (json_dumpf(rec, stdout, JSON_COMPACT | JSON_SORT_KEYS) < 0 || putchar('\n') == EOF)
		err = -EIO;
	fflush(stdout);
	return err;
}

int rt_record_write(json_t *rec, const char *path)
{
	if (!strcmp(path, "-")) {
		int err = emit_json(stdout, rec);

		fflush(stdout);
		return err;
	}
	return rt_file_write_atomic(path, emit_json, rec);
}
