/* SPDX-License-Identifier: MIT */
/* The subcommands of rmaptorture: each takes the argv after its name. */
#ifndef RT_STRESS_RT_CMD_H
#define RT_STRESS_RT_CMD_H

int cmd_locks(int argc, char **argv);
int cmd_bench(int argc, char **argv);
/* `bench vm`: argv[0] is "vm". */
int bench_vm(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_list(int argc, char **argv);
/* `replay ARTIFACT` and `minimize ARTIFACT` (cmd_replay.c, cmd_minimize.c). */
int cmd_replay(int argc, char **argv);
int cmd_minimize(int argc, char **argv);

#endif /* RT_STRESS_RT_CMD_H */
