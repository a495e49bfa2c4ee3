/* SPDX-License-Identifier: MIT */
/*
 * Transitional: what stress/bench_*.c include today. The entry points are
 * in commands.h, the child runs in run_child.h, the option lists in
 * rt_opt.h; drop this header when the benchmarks include those.
 */
#ifndef RT_STRESS_CLI_RT_CMD_H
#define RT_STRESS_CLI_RT_CMD_H

#include "commands.h"
#include "run_child.h"
#include "rt_opt.h"

#endif /* RT_STRESS_CLI_RT_CMD_H */
