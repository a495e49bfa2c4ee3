// SPDX-License-Identifier: MIT
#include "record.h"

#include <errno.h>
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

json_t *rt_record_new(const char *kind)
{
	char date[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return json_pack("{s:s, s:s, s:s, s:s, s:{s:i, s:s}}",
			 "kind", kind,
			 "version", RT_VERSION,
			 "git", RT_GIT_REV,
			 "date", date,
			 "machine", "cores", rt_machine_cores(),
			 "model", rt_machine_model());
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

int rt_record_write(json_t *rec, const char *path)
{
	if (!strcmp(path, "-")) {
		int err = emit_json(stdout, rec);

		fflush(stdout);
		return err;
	}
	return rt_file_write_atomic(path, emit_json, rec);
}
