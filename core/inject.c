// SPDX-License-Identifier: MIT
#include "inject.h"

#include <string.h>

uint64_t inject_mask;

static const char *const names[INJECT_NR_BUGS] = {
	[INJECT_RECLAIM_LOCK_PTL] = "reclaim-lock-ptl",
};

const char *inject_name(enum inject_bug bug)
{
	return (unsigned)bug < INJECT_NR_BUGS ? names[bug] : "?";
}

int inject_by_name(const char *name)
{
	for (int i = 0; i < INJECT_NR_BUGS; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}
