// SPDX-License-Identifier: MIT
/*
 * `bench vm`'s tables and record, from what bench_vm.c measured. The
 * JSON keys are those of results/baselines/bench*.json, which
 * `bench --compare` and `report` read.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_vm-internal.h"
#include "record.h"

/* A table cell of @width: @v with @prec decimals, or "-" for a measurement not taken. */
static void put_num(FILE *out, int width, int prec, double v)
{
	if (isfinite(v))
		fprintf(out, " %*.*f", width, prec, v);
	else
		fprintf(out, " %*s", width, "-");
}

/* A number for the record: null for a measurement not taken (NaN is not JSON). */
static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static void print_rule(FILE *out, int nd)
{
	for (int i = 0; i < 26 + nd * 14 + (nd - 1) * 10; i++)
		fputc('-', out);
	fputc('\n', out);
}

/* The header of a per-design table: @first, each design, each design / ptechain. */
static void print_header(const struct vm_results *res, FILE *out, const char *first, bool ratios)
{
	fprintf(out, "%-26s", first);
	for (int d = 0; d < res->nd; d++)
		fprintf(out, " %13s", rmap_mode_name(res->modes[d]));
	for (int d = 1; ratios && d < res->nd; d++)
		fprintf(out, " %9s", rmap_mode_name(res->modes[d]));
	fputc('\n', out);
	print_rule(out, res->nd);
}

/* Rows @from..@to: the medians, and their ratio to ptechain's. */
static void print_medians(const struct vm_results *res, FILE *out, int from, int to, bool params)
{
	bool base = res->modes[0] == RMAP_PTECHAIN;

	for (int r = from; r <= to; r++) {
		char label[64];

		if (params)
			snprintf(label, sizeof(label), "%s (%ld pages)", res->rows[r].label,
				 res->rows[r].param);
		else
			snprintf(label, sizeof(label), "%s", res->rows[r].label);
		fprintf(out, "%-26s", label);
		for (int d = 0; d < res->nd; d++)
			put_num(out, 13, 0, res->med[r][d]);
		for (int d = 1; d < res->nd; d++)
			if (base && isfinite(res->med[r][d] / res->med[r][0]))
				fprintf(out, " %8.2fx", res->med[r][d] / res->med[r][0]);
			else if (base)
				fprintf(out, " %9s", "-");
		fputc('\n', out);
	}
}

static void print_spread(const struct vm_results *res, FILE *out)
{
	fprintf(out, "\nspread: min .. max of the %d samples\n", res->repeat);
	fprintf(out, "%-26s", "measurement");
	for (int d = 0; d < res->nd; d++)
		fprintf(out, " %25s", rmap_mode_name(res->modes[d]));
	fputc('\n', out);
	for (int r = 0; r < NR_ROWS; r++) {
		char label[64], cell[64];

		if (r <= R_EXIT_LARGE)
			snprintf(label, sizeof(label), "%s (%ld pages)", res->rows[r].label,
				 res->rows[r].param);
		else
			snprintf(label, sizeof(label), "unmap ns, %s", res->rows[r].label);
		fprintf(out, "%-26s", label);
		for (int d = 0; d < res->nd; d++) {
			if (res->n[r][d])
				snprintf(cell, sizeof(cell), "%.0f .. %.0f", res->mn[r][d], res->mx[r][d]);
			else
				snprintf(cell, sizeof(cell), "-");
			fprintf(out, " %25s", cell);
		}
		fputc('\n', out);
	}
}

/* The host kernel's rows: its figure, and each design's model/host rate. */
static void print_host(const struct vm_results *res, FILE *out)
{
	fprintf(out, "\nthe host kernel, same run, same statistics (median of %d; real mmap+write+munmap,"
		" real fork+_exit+waitpid;\n"
		"this process had %ld kB of anonymous memory of its own at the forks)\n"
		"ratio = model/host rate = host time / model time per operation (higher is better: 10.00x =\n"
		"the model makes 10 times the host kernel's operations per second)\n",
		res->repeat, res->host_anon_kb);
	fprintf(out, "%-26s %13s %13s", "measurement", "host", "host min..max");
	for (int d = 0; d < res->nd; d++)
		fprintf(out, " %13s", rmap_mode_name(res->modes[d]));
	fputc('\n', out);
	print_rule(out, res->nd);
	for (int r = 0; r < NR_ROWS; r++) {
		char label[64], cell[64];

		if (!res->rows[r].host_fn)
			continue;
		snprintf(label, sizeof(label), "%s (%ld pages)", res->rows[r].label, res->rows[r].param);
		snprintf(cell, sizeof(cell), "%.0f..%.0f", res->host_mn[r], res->host_mx[r]);
		fprintf(out, "%-26s", label);
		put_num(out, 13, 0, res->host_med[r]);
		fprintf(out, " %13s", res->host_n[r] ? cell : "-");
		for (int d = 0; d < res->nd; d++) {
			double x = rt_bench_host_ratio(res->med[r][d], res->host_med[r]);

			if (isfinite(x))
				fprintf(out, " %12.2fx", x);
			else
				fprintf(out, " %13s", "-");
		}
		fputc('\n', out);
	}
}

/* The verdict of point @c of op @op and design @d (n/a at one CPU). */
static enum rt_bench_scaling_verdict scaling_verdict(const struct vm_results *res, int op, int d,
						      int c)
{
	if (!c)
		return RT_SCALING_NA;
	return rt_bench_scaling_verdict(&res->scal[op][d][0], &res->scal[op][d][c],
					rt_machine_cores());
}

/* 5. the disjoint-mm scaling row, each point's ratio to one CPU and its verdict. */
static void print_scaling(const struct vm_results *res, FILE *out)
{
	fprintf(out, "\n5. disjoint mms: CPU ns per operation per CPU, N CPUs each in its own mm (median of %d,"
		" min..max),\n   ratio to N=1, wall ns and its ratio, CPUs that ran at a time; FLAG: the CPU"
		" cost grew beyond\n   the spread of the repeats by more than %.0f%% (n/a where fewer than %.0f%% of"
		" the CPUs ran side by side)\n", res->repeat, 100 * RT_BENCH_SCALING_MARGIN,
		100 * RT_BENCH_SCALING_MIN_PARALLEL);
	for (int op = 0; op < RT_BENCH_SCALING_OPS; op++) {
		const struct rt_bench_scaling_op *o = &rt_bench_scaling_ops[op];

		fprintf(out, "%s: %s%s\n", o->label, o->shares ? "shares, as 2.6 did, " :
			"shares nothing by design", o->shares ? o->shares : "");
		for (int d = 0; d < res->nd; d++)
			for (int c = 0; c < res->nscal; c++) {
				const struct rt_bench_scaling_point *p = &res->scal[op][d][c];
				const struct rt_bench_scaling_point *one = &res->scal[op][d][0];

				fprintf(out, "  %-10s N=%-3d", rmap_mode_name(res->modes[d]), p->cpus);
				put_num(out, 10, 1, p->med);
				fprintf(out, " (%.1f .. %.1f)", p->mn, p->mx);
				put_num(out, 6, 2, p->med / one->med);
				fprintf(out, "x  %-4s  wall", rt_bench_scaling_verdict_name(
					scaling_verdict(res, op, d, c)));
				put_num(out, 10, 1, p->wall_med);
				put_num(out, 6, 2, p->wall_med / one->wall_med);
				fprintf(out, "x  ran side by side %.2f\n", rt_bench_scaling_parallelism(p));
			}
	}
}

/* 3, and the article's arithmetic at the largest process count. */
static void print_bytes(const struct vm_results *res, FILE *out)
{
	const struct rt_bench_vm_cfg *cfg = res->cfg;
	const double ptes_per_task = 2.7e9 / 4096;
	char label[64];

	fprintf(out, "\n3. rmap metadata, Oracle case: P processes map one %lu-page file MAP_SHARED and read all of it\n"
		"   (pte_chain + anon_vma bytes; B/pte = per mapped pte, B/page = per distinct page)\n",
		cfg->bytes_file_pages);
	print_header(res, out, "processes", false);
	for (int p = 0; p < 3; p++) {
		snprintf(label, sizeof(label), "P=%d  bytes", cfg->bytes_procs[p]);
		fprintf(out, "%-26s", label);
		for (int d = 0; d < res->nd; d++)
			put_num(out, 13, 0, res->br_done[p][d] ? (double)res->br[p][d].bytes : NAN);
		fprintf(out, "\n%-26s", "      B/pte");
		for (int d = 0; d < res->nd; d++)
			put_num(out, 13, 2, res->br_done[p][d] ? res->br[p][d].per_pte : NAN);
		fprintf(out, "\n%-26s", "      B/page");
		for (int d = 0; d < res->nd; d++)
			put_num(out, 13, 1, res->br_done[p][d] ? res->br[p][d].per_page : NAN);
		fputc('\n', out);
	}
	fprintf(out, "\nthe article's arithmetic: 2.7 GB mapped per task = %.0f ptes per task\n",
		ptes_per_task);
	fprintf(out, "%-26s %16s %16s\n", "bytes per pte", "x 100 tasks", "x 700 tasks");
	fprintf(out, "%-26s %13.2f GB %13.2f GB\n", "8 (the article)",
		8 * ptes_per_task * 100 / 1e9, 8 * ptes_per_task * 700 / 1e9);
	for (int d = 0; d < res->nd && res->br_done[2][d]; d++) {
		snprintf(label, sizeof(label), "%.2f (%s, P=%d)", res->br[2][d].per_pte,
			 rmap_mode_name(res->modes[d]), cfg->bytes_procs[2]);
		fprintf(out, "%-26s %13.2f GB %13.2f GB\n", label,
			res->br[2][d].per_pte * ptes_per_task * 100 / 1e9,
			res->br[2][d].per_pte * ptes_per_task * 700 / 1e9);
	}
}

void vm_print_tables(const struct vm_results *res, FILE *out)
{
	fprintf(out, "\n1-2. throughput (higher is better), median of %d; ratio = design / ptechain\n",
		res->repeat);
	print_header(res, out, "measurement", true);
	print_medians(res, out, R_ANON_FAULT, R_EXIT_LARGE, true);
	print_host(res, out);
	fprintf(out, "\n4. try_to_unmap() of one page, page locked + rmap lock held (ns per call, lower is better;\n"
		"   median of %d samples of >= 20 calls; includes ~%.0f ns of clock_gettime)\n",
		res->repeat, res->timer_ns);
	print_header(res, out, "page mapped by", true);
	print_medians(res, out, R_UNMAP_SH1, NR_ROWS - 1, false);
	print_spread(res, out);
	print_bytes(res, out);
	print_scaling(res, out);
	if (res->reclaim_scanned || res->alloc_fail)
		fprintf(out, "\nWARNING: reclaim scanned %lu pages, %lu allocations failed: raise --pages\n",
			res->reclaim_scanned, res->alloc_fail);
	if (res->stopped)
		fprintf(out, "\nINTERRUPTED: partial; each figure is of the samples taken before"
			" (- where none was)\n");
}

/* Rows @from..@to of design @d: key -> median. */
static json_t *medians_json(const struct vm_results *res, int d, int from, int to, json_t *o)
{
	for (int r = from; r <= to; r++)
		json_object_set_new(o, res->rows[r].key, real_or_null(res->med[r][d]));
	return o;
}

static json_t *spread_json(const struct vm_results *res, int d)
{
	json_t *spread = json_object();

	for (int r = 0; r < NR_ROWS; r++) {
		char key[64];

		if (r <= R_EXIT_LARGE)
			snprintf(key, sizeof(key), "%s", res->rows[r].key);
		else
			snprintf(key, sizeof(key), "try_to_unmap_ns_%s_%s",
				 r <= R_UNMAP_SH100 ? "sharers" :
				 r <= R_UNMAP_ANON100 ? "sharers_anon" : "vmas", res->rows[r].key);
		json_object_set_new(spread, key, json_pack("{s:o, s:o, s:i}",
			"min", real_or_null(res->mn[r][d]), "max", real_or_null(res->mx[r][d]),
			"n", res->n[r][d]));
	}
	return spread;
}

static json_t *bytes_json(const struct vm_results *res, int d)
{
	json_t *bytes = json_object();

	for (int p = 0; p < 3; p++) {
		const struct bytes_result *b = &res->br[p][d];
		char key[16];

		snprintf(key, sizeof(key), "%d", res->cfg->bytes_procs[p]);
		if (!res->br_done[p][d]) {
			json_object_set_new(bytes, key, json_null());
			continue;
		}
		json_object_set_new(bytes, key,
			json_pack("{s:I, s:I, s:I, s:f, s:f}",
				  "pte_chain", (json_int_t)b->pte_chain,
				  "anon_vma", (json_int_t)b->anon_vma,
				  "vma_extra", (json_int_t)b->vma_extra,
				  "per_pte", b->per_pte,
				  "per_page", b->per_page));
	}
	return bytes;
}

/* Each host row's model/host rate of design @d. */
static json_t *host_ratio_json(const struct vm_results *res, int d)
{
	json_t *o = json_object();

	for (int r = 0; r < NR_ROWS; r++)
		if (res->rows[r].host_fn)
			json_object_set_new(o, res->rows[r].key, real_or_null(
				rt_bench_host_ratio(res->med[r][d], res->host_med[r])));
	return o;
}

/* 5 of design @d: op -> CPUs -> statistics, ratio to one CPU, verdict. */
static json_t *scaling_json(const struct vm_results *res, int d)
{
	json_t *o = json_object();

	for (int op = 0; op < RT_BENCH_SCALING_OPS; op++) {
		json_t *jop = json_object();

		for (int c = 0; c < res->nscal; c++) {
			const struct rt_bench_scaling_point *p = &res->scal[op][d][c];
			char key[16];

			snprintf(key, sizeof(key), "%d", p->cpus);
			json_object_set_new(jop, key, json_pack("{s:o, s:o, s:o, s:i, s:o, s:s, s:o, s:o, s:o, s:o, s:o}",
				"median", real_or_null(p->med), "min", real_or_null(p->mn),
				"max", real_or_null(p->mx), "n", p->n,
				"ratio", real_or_null(p->med / res->scal[op][d][0].med),
				"verdict", rt_bench_scaling_verdict_name(scaling_verdict(res, op, d, c)),
				"wall_median", real_or_null(p->wall_med),
				"wall_min", real_or_null(p->wall_mn), "wall_max", real_or_null(p->wall_mx),
				"wall_ratio", real_or_null(p->wall_med / res->scal[op][d][0].wall_med),
				"parallelism", real_or_null(rt_bench_scaling_parallelism(p))));
		}
		json_object_set_new(o, rt_bench_scaling_ops[op].key, jop);
	}
	return o;
}

/* The host kernel's figures (rows with a host_fn) with their spreads. */
static json_t *host_json(const struct vm_results *res)
{
	json_t *o = json_object(), *spread = json_object();

	for (int r = 0; r < NR_ROWS; r++) {
		if (!res->rows[r].host_fn)
			continue;
		json_object_set_new(o, res->rows[r].key, real_or_null(res->host_med[r]));
		json_object_set_new(spread, res->rows[r].key, json_pack("{s:o, s:o, s:i}",
			"min", real_or_null(res->host_mn[r]), "max", real_or_null(res->host_mx[r]),
			"n", res->host_n[r]));
	}
	json_object_set_new(o, "spread", spread);
	json_object_set_new(o, "process_anon_kb", res->host_anon_kb >= 0 ?
			    json_integer(res->host_anon_kb) : json_null());
	json_object_set_new(o, "ratio", json_string("each design's vs_host: model rate / host rate"
						    " (= host time / model time per operation); higher is better"));
	return o;
}

/*
 * The scaling row's CPU counts and its verdict: FLAG if any point of an
 * operation that shares nothing by design flagged in any design; the
 * FLAGs of the operations 2.6 shared a line for are counted apart.
 */
static json_t *scaling_summary_json(const struct vm_results *res)
{
	json_t *cpus = json_array(), *shared = json_object();
	int flags = 0, flags_shared = 0, oks = 0;

	for (int c = 0; c < res->nscal; c++)
		json_array_append_new(cpus, json_integer(res->scal_cpus[c]));
	for (int op = 0; op < RT_BENCH_SCALING_OPS; op++) {
		const struct rt_bench_scaling_op *o = &rt_bench_scaling_ops[op];

		if (o->shares)
			json_object_set_new(shared, o->key, json_string(o->shares));
		for (int d = 0; d < res->nd; d++)
			for (int c = 1; c < res->nscal; c++) {
				enum rt_bench_scaling_verdict v = scaling_verdict(res, op, d, c);

				if (o->shares) {
					flags_shared += v == RT_SCALING_FLAG;
					continue;
				}
				flags += v == RT_SCALING_FLAG;
				oks += v == RT_SCALING_OK;
			}
	}
	return json_pack("{s:o, s:s, s:i, s:i, s:o, s:s}", "cpus", cpus,
			 "verdict", flags ? "FLAG" : oks ? "ok" : "n/a", "flags", flags,
			 "flags_shared", flags_shared, "shared", shared, "metric", "cpu_ns");
}

static json_t *design_json(const struct vm_results *res, int d)
{
	json_t *o = medians_json(res, d, 0, R_EXIT_LARGE, json_object());
	json_t *tu = json_object();

	json_object_set_new(tu, "by_sharers",
			    medians_json(res, d, R_UNMAP_SH1, R_UNMAP_SH100, json_object()));
	json_object_set_new(tu, "by_sharers_anon",
			    medians_json(res, d, R_UNMAP_ANON1, R_UNMAP_ANON100, json_object()));
	json_object_set_new(tu, "by_vmas",
			    medians_json(res, d, R_UNMAP_V1, R_UNMAP_V1000, json_object()));
	json_object_set_new(o, "try_to_unmap_ns", tu);
	json_object_set_new(o, "spread", spread_json(res, d));
	/* The Oracle case at the largest P: bytes per mapped pte. */
	json_object_set_new(o, "rmap_bytes_per_mapped_page",
			    res->br_done[2][d] ? json_real(res->br[2][d].per_pte) : json_null());
	json_object_set_new(o, "rmap_bytes_per_distinct_page",
			    res->br_done[2][d] ? json_real(res->br[2][d].per_page) : json_null());
	json_object_set_new(o, "rmap_bytes_by_procs", bytes_json(res, d));
	json_object_set_new(o, "vs_host", host_ratio_json(res, d));
	json_object_set_new(o, "disjoint_scaling", scaling_json(res, d));
	return o;
}

void vm_record(const struct vm_results *res, bool quick, json_t *rec)
{
	const struct rt_bench_vm_cfg *cfg = res->cfg;
	json_t *jd = json_object(), *jmodes = json_array();

	for (int d = 0; d < res->nd; d++)
		json_object_set_new(jd, rmap_mode_name(res->modes[d]), design_json(res, d));
	json_object_set_new(rec, "designs", jd);
	json_object_set_new(rec, "host", host_json(res));
	json_object_set_new(rec, "scaling", scaling_summary_json(res));
	/* No design is left out now that every one is built; the key stays for readers. */
	json_object_set_new(rec, "skipped", json_array());
	json_object_set_new(rec, "repeat", json_integer(res->repeat));
	json_object_set_new(rec, "quick", json_boolean(quick));
	json_object_set_new(rec, "pages", json_integer((json_int_t)cfg->pages));
	json_object_set_new(rec, "sample_seconds", json_real(cfg->sample_s));
	json_object_set_new(rec, "fault_pages", json_integer((json_int_t)cfg->fault_pages));
	json_object_set_new(rec, "bytes_file_pages", json_integer((json_int_t)cfg->bytes_file_pages));
	json_object_set_new(rec, "timer_overhead_ns", json_real(res->timer_ns));
	json_object_set_new(rec, "reclaim_scanned", json_integer((json_int_t)res->reclaim_scanned));
	/* Partial: stopped by cfg->stop (Ctrl-C); "n" in each spread says how far. */
	json_object_set_new(rec, "interrupted", json_boolean(res->stopped));
	for (int d = 0; d < res->nd; d++)
		json_array_append_new(jmodes, json_string(rmap_mode_name(res->modes[d])));
	json_object_set_new(rec, "modes", jmodes);
	json_object_set_new(rec, "bytes_procs", json_pack("[i, i, i]", cfg->bytes_procs[0],
							  cfg->bytes_procs[1], cfg->bytes_procs[2]));
}

bool rt_bench_scaling_flagged(const json_t *rec, FILE *out)
{
	const char *v = json_string_value(json_object_get(json_object_get(rec, "scaling"), "verdict"));
	bool flag = v && !strcmp(v, "FLAG");

	json_int_t shared = json_integer_value(json_object_get(json_object_get(rec, "scaling"),
							      "flags_shared"));

	fprintf(out, "disjoint-mm scaling: %s%s", v ? v : "not measured",
		flag ? ": the CPU cost of an operation that shares nothing by design grew with the"
		       " CPUs beyond the spread of the repeats" : "");
	if (shared)
		fprintf(out, "%s%lld FLAGs of operations that share the zone's lines as 2.6 did"
			" (not counted)", "; ", (long long)shared);
	fputc('\n', out);
	return flag;
}
