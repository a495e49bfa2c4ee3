#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turn a ThreadSanitizer suppressions file into a C header.

usage: supp_to_c.py MACRO INPUT OUTPUT

OUTPUT defines MACRO as a string literal holding INPUT's entries, one per
line, without the comments and blank lines around them: what
__tsan_default_suppressions() returns (sanitizers/defaults/defaults.c).
The file stays the one source of truth, each entry beside the comment
that proves its report false; a malformed entry fails the build here
instead of the sanitized binary at startup.
"""
import sys

# compiler-rt's tsan_suppressions.cpp: the types TSan knows.
TYPES = ("race", "race_top", "thread", "mutex", "signal", "deadlock", "called_from_lib")


def entries(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            kind, sep, pattern = line.partition(":")
            if not sep or kind not in TYPES or not pattern or any(c in line for c in '"\\'):
                sys.exit("%s:%d: not a TSan suppression (TYPE:PATTERN, TYPE one of %s): %s"
                         % (path, n, ", ".join(TYPES), line))
            out.append(line)
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[2])
    macro, src, dst = sys.argv[1:]
    lines = ["/* Generated from %s by supp_to_c.py: edit that file. */" % src.split("/")[-1],
             "#define %s \\" % macro]
    lines += ['\t"%s\\n" \\' % e for e in entries(src)]
    lines.append('\t""')
    with open(dst, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
