#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turn vtime's calibrated cost table (a TSV file) into C.

usage: vtime_costs_to_c.py INPUT OUTPUT

INPUT (stress/vtime-costs.tsv, written by scripts/vtime-calibrate.sh):
the first line describes how the table was made; every other line is one
row of six tab-separated fields: design, operation, point kind, lock
class ("-": no lock), summed ns, segments. OUTPUT defines what
stress/rt_vtime.h declares: rt_vtime_costs_source, rt_vtime_cost_rows[]
and rt_vtime_nr_cost_rows. A malformed line fails the build here, naming
the line and what is wrong with it.
"""
import sys

KINDS = ("lock", "unlock", "wait", "yield", "release")


def bad(path, n, what, line):
    sys.exit("%s:%d: %s: %r" % (path, n, what, line))


def plain(s):
    """Fit for a C string literal as it is: printable ASCII, no quote or backslash."""
    return all(" " <= c <= "~" for c in s) and '"' not in s and "\\" not in s


def read(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or not lines[0].strip():
        sys.exit("%s:1: no source description on the first line" % path)
    source = lines[0]
    if not plain(source):
        bad(path, 1, "source description not printable ASCII without quote or backslash", source)
    rows = []
    for n, line in enumerate(lines[1:], 2):
        f = line.split("\t")
        if len(f) != 6:
            bad(path, n, "not 6 tab-separated fields (design, operation, point kind, "
                "lock class, summed ns, segments)", line)
        if not all(x and plain(x) and " " not in x for x in f[:4]):
            bad(path, n, "an empty name, or one with a space, quote, backslash or non-ASCII",
                line)
        if f[2] not in KINDS:
            bad(path, n, "point kind not one of %s" % ", ".join(KINDS), line)
        if not (f[4].isdigit() and f[5].isdigit() and f[4].isascii() and f[5].isascii()):
            bad(path, n, "summed ns and segments must be unsigned decimal integers", line)
        if int(f[5]) == 0 or int(f[4]) >= 2**64 or int(f[5]) >= 2**64:
            bad(path, n, "segments must be at least 1, and both counts under 2^64", line)
        rows.append(f)
    if not rows:
        sys.exit("%s: no rows after the source description" % path)
    return source, rows


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2])
    src, dst = sys.argv[1:]
    source, rows = read(src)
    out = ["// SPDX-License-Identifier: MIT",
           "/* Generated from %s by vtime_costs_to_c.py: edit that file (rt_vtime.h). */"
           % src.split("/")[-1],
           '#include "rt_vtime.h"',
           "",
           "const char rt_vtime_costs_source[] =",
           '\t"%s";' % source,
           "",
           "/* design, operation, point kind, lock class, summed ns, segments */",
           "const struct rt_vtime_cost_row rt_vtime_cost_rows[] = {"]
    out += ['\t{ "%s", "%s", "%s", "%s", %s, %s },' % (d, o, k, c, int(s), int(n))
            for d, o, k, c, s, n in rows]
    out += ["};",
            "const int rt_vtime_nr_cost_rows = "
            "(int)(sizeof(rt_vtime_cost_rows) / sizeof(rt_vtime_cost_rows[0]));"]
    with open(dst, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
