#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every rmaptorture command of the CI examples (docs/ci/*.yml) parses.

usage: check_ci_examples.py RMAPTORTURE EXAMPLE.yml...

Each line of an example that runs build/stress/rmaptorture is taken as it
stands, its CI variables replaced by sample values (an unknown one is an
error: give it a sample below), and run from a scratch directory with
RMAPTORTURE in place of the example's path:
- `ci` with --dry-run added: it checks every option and prints the plan,
  running nothing; it must exit 0;
- `ci-merge` as written: the shard records do not exist there, so it must
  get past its options to the records: exit 2 with a message naming the
  first record.
Any other subcommand is an error (add its check here). Each example must
hold at least one command, parse as YAML (python3-yaml, where installed;
.ci/run installs it) and hold each command in one of its strings.
Exit 0 when all hold, 1 otherwise, saying which.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

# GitHub Actions expressions ${{ ... }} and shell variables (GitLab's
# predefined ones) that the examples use, with sample values.
SAMPLES = {
    "matrix.shard": "1",
    "github.run_id": "12345",
    "CI_NODE_INDEX": "1",
    "CI_NODE_TOTAL": "4",
    "CI_PIPELINE_ID": "12345",
}

COMMAND = re.compile(r"(\S*stress/rmaptorture)\s+(.*)$")
EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")
SHELL_VAR = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")


def substitute(cmd):
    """@cmd with every variable replaced by its sample value."""
    def sample(m):
        name = m.group(1)
        if name not in SAMPLES:
            raise KeyError(name)
        return SAMPLES[name]
    return SHELL_VAR.sub(sample, EXPRESSION.sub(sample, cmd))


def commands(path):
    """The (line number, command text) of each rmaptorture command in @path."""
    found = []
    lines = open(path, encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        m = COMMAND.search(line)
        if not m or line.lstrip().startswith("#"):
            continue
        text = m.group(0)
        while text.endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text[:-1] + " " + lines[i].strip()
        found.append((i + 1, text))
    return found


def check_yaml(path, cmds):
    """Problems: @path does not parse, or a command is in none of its strings."""
    try:
        import yaml
    except ImportError:
        print("# python3-yaml not installed: %s not parsed as YAML" % path)
        return []
    try:
        doc = yaml.safe_load(open(path, encoding="utf-8"))
    except yaml.YAMLError as e:
        return ["%s: not YAML: %s" % (path, e)]
    strings = []

    def walk(v):
        if isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, str):
            strings.append(v)
    walk(doc)
    return ["%s:%d: the command is in none of the YAML's strings" % (path, n)
            for n, text in cmds if not any(text in s for s in strings)]


def run(binary, path, n, text, scratch):
    """A problem with the command @text (line @n of @path), or None."""
    where = "%s:%d" % (path, n)
    try:
        text = substitute(text)
    except KeyError as e:
        return "%s: no sample value for %s (add one to SAMPLES)" % (where, e)
    # The shard jobs pass whatever the gate says: the test must not.
    text = re.sub(r"\s*\|\|\s*true\s*$", "", text)
    argv = shlex.split(text, comments=True)
    if len(argv) < 2:
        return "%s: no subcommand" % where
    sub, args = argv[1], argv[2:]
    if sub == "ci":
        argv = [binary, "ci", "--dry-run"] + args
    elif sub == "ci-merge":
        argv = [binary, "ci-merge"] + args
    else:
        return "%s: '%s': no check for this subcommand" % (where, sub)
    r = subprocess.run(argv, cwd=scratch, capture_output=True, text=True, timeout=60)
    shown = "$ %s\n%s%s" % (" ".join(argv), r.stdout[-2000:], r.stderr[-2000:])
    if sub == "ci":
        if r.returncode != 0 or "ci: seed " not in r.stdout:
            return "%s: exit %d, no plan\n%s" % (where, r.returncode, shown)
    else:
        records = [a for i, a in enumerate(args) if not a.startswith("-")
                   and (i == 0 or args[i - 1] not in ("-j", "--junit", "--json"))]
        first = records[0] if records else None
        if r.returncode != 2 or not first or first not in r.stderr:
            return ("%s: expected exit 2 naming the missing record %s (past the options);"
                    " got exit %d\n%s" % (where, first, r.returncode, shown))
    return None


def main(argv):
    if len(argv) < 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    binary = os.path.abspath(argv[1])
    problems = []
    ran = 0
    with tempfile.TemporaryDirectory(prefix="rt-ci-examples-") as scratch:
        for path in argv[2:]:
            cmds = commands(path)
            if not cmds:
                problems.append("%s: no rmaptorture command" % path)
            problems += check_yaml(path, cmds)
            for n, text in cmds:
                p = run(binary, path, n, text, scratch)
                ran += 1
                if p:
                    problems.append(p)
                else:
                    print("ok %s:%d" % (os.path.basename(path), n))
    for p in problems:
        print("FAIL " + p)
    print("%d commands, %d problems" % (ran, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
