/* SPDX-License-Identifier: MIT */
/* The commands of rmaptorture (main.c): each takes the argv after its name. */
#ifndef RT_STRESS_CLI_COMMANDS_H
#define RT_STRESS_CLI_COMMANDS_H

int cmd_run(int argc, char **argv);		/* cmd_run.c */
int cmd_list(int argc, char **argv);		/* cmd_list.c */
int cmd_replay(int argc, char **argv);		/* cmd_replay.c */
int cmd_minimize(int argc, char **argv);	/* cmd_minimize.c */
int cmd_ci(int argc, char **argv);		/* cmd_ci.c: the merge gate */
int cmd_ci_merge(int argc, char **argv);	/* cmd_ci_merge.c: a gate's shards judged as one */
int cmd_matrix(int argc, char **argv);		/* cmd_matrix.c: every seeded bug, caught? */
int cmd_locks(int argc, char **argv);		/* cmd_locks.c: the lock torture */
int cmd_scale(int argc, char **argv);		/* cmd_scale.c */
int cmd_report(int argc, char **argv);		/* cmd_report.c */
int cmd_coverage(int argc, char **argv);	/* cmd_coverage.c */
int cmd_explore(int argc, char **argv);		/* cmd_explore.c: pairs of operations, every schedule within K */

/* `bench`, `bench locks`, `bench vm` (cmd_bench*.c; the microbenchmarks are stress/bench/). */
int cmd_bench(int argc, char **argv);

#endif /* RT_STRESS_CLI_COMMANDS_H */
