// SPDX-License-Identifier: MIT
/* A `run` in a child process of this binary, and what its record says (run_child.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_child.h"
#include "run_child.h"

#define MAX_ARGS	256

int rt_self_exe(char *path, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", path, len - 1);

	if (n <= 0 || (size_t)n >= len - 1)
		return -ENAMETOOLONG;
	path[n] = '\0';
	return 0;
}

/* Every run-*.json in @dir, in name order. */
static json_t *read_run_records(const char *dir)
{
	struct dirent **names;
	json_t *a = json_array();
	int n = scandir(dir, &names, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		const char *nm = names[i]->d_name;
		size_t l = strlen(nm);

		if (!strncmp(nm, "run-", 4) && l > 5 && !strcmp(nm + l - 5, ".json")) {
			char path[4600];
			json_t *rec;

			snprintf(path, sizeof(path), "%s/%s", dir, nm);
			rec = json_load_file(path, 0, NULL);
			if (json_is_object(rec))
				json_array_append_new(a, rec);
			else
				json_decref(rec);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	return a;
}

int rt_run_child_records(const char *const *args, const char *dir, double timeout_s,
			 json_t **recs, char *first_line, size_t len)
{
	char exe[4096], log[4200];
	char *argv[MAX_ARGS + 8];
	int n = 0, rc;
	FILE *f;

	*recs = NULL;
	if (first_line && len)
		first_line[0] = '\0';
	if (rt_self_exe(exe, sizeof(exe))) {
		fprintf(stderr, "rmaptorture: cannot find this program (/proc/self/exe)\n");
		return RT_CHILD_ERROR;
	}
	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "rmaptorture: cannot create %s: %s\n", dir, strerror(errno));
		return RT_CHILD_ERROR;
	}
	argv[n++] = "rmaptorture";
	argv[n++] = "run";
	for (int i = 0; args[i] && n < MAX_ARGS; i++)
		argv[n++] = (char *)args[i];
	argv[n++] = "--out";
	argv[n++] = (char *)dir;
	argv[n++] = "--no-progress";
	argv[n] = NULL;
	snprintf(log, sizeof(log), "%s/output.log", dir);
	rc = rt_child_run(exe, argv, timeout_s, log, NULL);
	if (first_line && len && (f = fopen(log, "r"))) {
		/* The first line that is not the run's START banner: a usage error, a report. */
		while (fgets(first_line, (int)len, f))
			if (strncmp(first_line, "START:", 6))
				break;
		first_line[strcspn(first_line, "\n")] = '\0';
		fclose(f);
	}
	*recs = read_run_records(dir);
	return rc;
}

static double fallbacks_total(const json_t *rec)
{
	const json_t *fb = json_object_get(rec, "trylock_fallbacks");
	const char *key;
	json_t *v;
	double sum = 0;

	json_object_foreach((json_t *)fb, key, v)
		sum += json_number_value(v);
	return sum;
}

void rt_sample_of_run(const json_t *rec, double *ops_per_sec, double *fb_per_scan, double *fb_per_kop)
{
	double fb = fallbacks_total(rec);
	double scanned = json_number_value(json_object_get(json_object_get(rec, "reclaim"), "scanned"));
	double ops = json_number_value(json_object_get(rec, "ops"));

	*ops_per_sec = json_number_value(json_object_get(rec, "ops_per_sec"));
	*fb_per_scan = scanned > 0 ? fb / scanned : 0;
	*fb_per_kop = ops > 0 ? fb * 1000 / ops : 0;
}

