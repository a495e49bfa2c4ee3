// SPDX-License-Identifier: MIT
#include "rt_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "rt_check.h"

const char *rt_cli_binary(void)
{
	const char *env = getenv("RT_BINARY");

	return env && *env ? env : RT_BINARY_PATH;
}

int rt_cli_run(const char *const *args, char *out, size_t len)
{
	char *argv[64];
	int n = 0, st;

	argv[n++] = (char *)rt_cli_binary();
	for (int i = 0; args[i] && n < 63; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;
	st = rt_run_capture(argv, NULL, out, len);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

const char *rt_cli_excerpt(const char *out, size_t n)
{
	static const char *const heads[] = {
		"WARNING: ThreadSanitizer:", "ERROR: AddressSanitizer:", "runtime error:",
	};
	size_t len = strlen(out);

	for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
		const char *p = strstr(out, heads[i]);

		if (p)
			return p;
	}
	return len > n ? out + len - n : out;
}
