// SPDX-License-Identifier: MIT
/*
 * The seeded-bug catalogue's users (the table is rt_inject.c): a failure
 * kind against a bug's expectation, a bug's designs, the lookup by name,
 * the `run` arguments of a bug's configuration, its one-line command and
 * the listing (`list --bugs`, `run --inject list`).
 */
#include "rt_inject.h"

#include <stdio.h>
#include <string.h>

#include "inject.h"

bool rt_bug_kind_matches(const char *expect, const char *kind)
{
	const char *p = expect;

	while (p && *p) {
		size_t n = strcspn(p, "|");

		if (n && !strncmp(kind, p, n))
			return true;
		p += n;
		if (*p == '|')
			p++;
	}
	return false;
}

bool rt_bug_in_design(const struct rt_bug *bug, enum rmap_mode mode)
{
	return !bug->rmaps || (bug->rmaps & RMAP_MODE_BIT(mode));
}

const char *rt_bug_designs(const struct rt_bug *bug, char *buf, size_t len)
{
	rmap_mode_list(bug->rmaps ? bug->rmaps : RMAP_ALL_MODES, ",", buf, len);
	return buf;
}

int rt_bug_count(void)
{
	return INJECT_NR_BUGS;
}

const struct rt_bug *rt_bug_find(const char *name)
{
	if (!name)
		return NULL;
	for (const struct rt_bug *b = rt_bugs; b->name; b++)
		if (!strcmp(b->name, name))
			return b;
	return NULL;
}

void rt_bug_args(const struct rt_bug *bug, bool inject, struct rt_bug_args *out)
{
	int n = 0;

	memset(out, 0, sizeof(*out));
	out->argv[n++] = "run";
	out->argv[n++] = "--scenario";
	out->argv[n++] = bug->scenario;
	out->argv[n++] = "--rmap";
	out->argv[n++] = rmap_mode_name(bug->rmap);
	out->argv[n++] = "--sched";
	out->argv[n++] = bug->sched;
	snprintf(out->num[0], sizeof(out->num[0]), "%d", bug->threads);
	out->argv[n++] = "--threads";
	out->argv[n++] = out->num[0];
	snprintf(out->num[1], sizeof(out->num[1]), "%d", bug->reclaim_threads);
	out->argv[n++] = "--reclaim-threads";
	out->argv[n++] = out->num[1];
	snprintf(out->num[2], sizeof(out->num[2]), "%llu", (unsigned long long)bug->seed);
	out->argv[n++] = "--seed";
	out->argv[n++] = out->num[2];
	if (bug->sched_steps) {
		snprintf(out->num[3], sizeof(out->num[3]), "%lu", bug->sched_steps);
		out->argv[n++] = "--sched-steps";
		out->argv[n++] = out->num[3];
	}
	/* Free runs end here; deterministic ones are capped here too. */
	snprintf(out->num[4], sizeof(out->num[4]), "%g", bug->seconds);
	out->argv[n++] = "--seconds";
	out->argv[n++] = out->num[4];
	if (bug->watchdog > 0) {
		snprintf(out->num[5], sizeof(out->num[5]), "%g", bug->watchdog);
		out->argv[n++] = "--watchdog";
		out->argv[n++] = out->num[5];
	}
	if (bug->audit_every > 0) {
		snprintf(out->num[7], sizeof(out->num[7]), "%g", bug->audit_every);
		out->argv[n++] = "--audit-every";
		out->argv[n++] = out->num[7];
	}
	if (bug->perturb) {
		snprintf(out->num[6], sizeof(out->num[6]), "%d", bug->perturb);
		out->argv[n++] = "--perturb";
		out->argv[n++] = out->num[6];
		if (bug->yield_points) {
			out->argv[n++] = "--yield-points";
			out->argv[n++] = bug->yield_points;
		}
	}
	if (inject) {
		out->argv[n++] = "--inject";
		out->argv[n++] = bug->name;
	}
	out->argv[n] = NULL;
	out->argc = n;
}

int rt_bug_oneliner(const struct rt_bug *bug, char *buf, size_t len)
{
	bool sanitizer = strcmp(bug->build, "plain") != 0;

	return snprintf(buf, len, "rmaptorture run --inject %s%s%s", bug->name,
			sanitizer ? " --build " : "", sanitizer ? bug->build : "");
}

void rt_bug_list(FILE *f)
{
	for (const struct rt_bug *b = rt_bugs; b->name; b++) {
		char cmd[128], designs[RMAP_MODE_LIST_LEN];

		rt_bug_oneliner(b, cmd, sizeof(cmd));
		fprintf(f, "%s\n", b->name);
		fprintf(f, "  bug:       %s\n", b->summary);
		fprintf(f, "  history:   %s\n", b->history);
		fprintf(f, "  needs:     scenario %s, rmap %s, sched %s, build %s "
			"(%d+%d threads, seed %llu, ", b->scenario, rmap_mode_name(b->rmap),
			b->sched, b->build,
			b->threads, b->reclaim_threads, (unsigned long long)b->seed);
		if (b->sched_steps)
			fprintf(f, "%lu decisions)\n", b->sched_steps);
		else
			fprintf(f, "%g s)\n", b->seconds);
		if (b->perturb)
			fprintf(f, "  perturb:   level %d at %s\n", b->perturb,
				b->yield_points ? b->yield_points : "every yield point");
		if (b->audit_every > 0)
			fprintf(f, "  audit:     every %g s\n", b->audit_every);
		if (b->rmaps)
			fprintf(f, "  designs:   its code is in %s only\n",
				rt_bug_designs(b, designs, sizeof(designs)));
		fprintf(f, "  detector:  %s (first report: %s)\n", b->detector, b->expect);
		if (b->caveat)
			fprintf(f, "  note:      %s\n", b->caveat);
		fprintf(f, "  reproduce: %s\n", cmd);
	}
}
