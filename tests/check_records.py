#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Validate rmaptorture's JSON records against schemas/<record>.schema.json.

  check_records.py SCHEMAS FILE...
      Validate each record FILE (one JSON object, or JSON Lines) against the
      schema its "record" names. Exit 0 when all are valid, 1 otherwise.

  check_records.py --produce BINARY SCHEMAS SOURCE_ROOT [BUILD_KIND]
      Produce one record of every kind that is cheap to make (run, run
      --json with --rmap all, failure artifact, replay's artifact, explore,
      locks, scale, bench locks, cover-map, ci through ci-merge of the stored
      shards), with a seed above 2^63 wherever a record carries one, and
      validate each; check that the seed comes back as written (through
      replay too) and that
      `run --rmap all --json` is one run record per line. The costly kinds
      (bench, bench vm, matrix) are validated where the stress tests make
      them (tests/check_numbers.c). In a sanitizer build (BUILD_KIND tsan
      or asan), also a seeded bug that sanitizer catches, captured: its
      grouped artifacts (and TSan's lock classes) against the schema.

Exit 77 (skipped) when python3-jsonschema is missing.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    print("SKIP: python3-jsonschema is not installed")
    sys.exit(77)

# Above 2^63: a signed 64-bit integer would read it as negative.
BIG_SEED = "15592876743985693002"


def load_records(path):
    """The records in @path: one JSON object, or one per line."""
    with open(path) as f:
        text = f.read()
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def validate(schemas, name, rec):
    """A list of one-line problems of record @rec (from @name)."""
    if not isinstance(rec, dict):
        return ["%s: not a JSON object" % name]
    kind = rec.get("record")
    path = os.path.join(schemas, "%s.schema.json" % kind)
    if not isinstance(kind, str) or not os.path.exists(path):
        return ["%s: no schema for record %r (field 'record')" % (name, kind)]
    with open(path) as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    # The first few of each record: one wrong key repeats in every entry of a map.
    return ["%s: %s record: at /%s: %s" % (name, kind, "/".join(str(p) for p in e.absolute_path),
                                          e.message)
            for _, e in zip(range(5), cls(schema).iter_errors(rec))]


def validate_files(schemas, files):
    bad = []
    kinds = set()
    for path in files:
        for rec in load_records(path):
            bad += validate(schemas, path, rec)
            kinds.add(rec.get("record") if isinstance(rec, dict) else None)
    return bad, kinds


class Producer:
    def __init__(self, binary, schemas, root, tmp, build_kind="plain"):
        self.binary, self.schemas, self.root, self.tmp = binary, schemas, root, tmp
        self.build_kind = build_kind
        self.problems = []
        self.kinds = set()

    def run(self, want_rc, *args):
        """Run the binary with @args; its stdout. A wrong exit is a problem."""
        p = subprocess.run([self.binary] + list(args), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, cwd=self.tmp, timeout=120)
        if p.returncode != want_rc:
            self.problems.append("%s: exit %d, not %d\n%s" % (" ".join(args), p.returncode,
                                                               want_rc, p.stderr[-2000:]))
        return p.stdout

    def check(self, name, rec, seed=None):
        self.problems += validate(self.schemas, name, rec)
        self.kinds.add(rec.get("record") if isinstance(rec, dict) else None)
        if seed is not None and isinstance(rec, dict) and rec.get("seed") != seed:
            self.problems.append("%s: seed %r, not %r" % (name, rec.get("seed"), seed))

    def check_files(self, pattern, want, seed=None):
        files = sorted(glob.glob(os.path.join(self.tmp, pattern)))
        if len(files) != want and (want is not None or not files):
            self.problems.append("%s: %d files, not %s" % (pattern, len(files), want or "some"))
        for path in files:
            for rec in load_records(path):
                self.check(os.path.relpath(path, self.tmp), rec, seed)
        return files

    def produce_sanitizer(self):
        """In a sanitizer build: a seeded bug its sanitizer catches, captured
        (run --build KIND in this build itself): the grouped artifacts, with
        TSan's lock classes, against the failure schema."""
        bug = {"tsan": "anon-vma-walk-unlocked", "asan": "anon-vma-free-now"}.get(self.build_kind)
        if not bug:
            return
        self.run(1, "run", "--build", self.build_kind, "--no-build", "--inject", bug,
                 "--no-progress", "--out", "san")
        arts = self.check_files("san/failure-%s-*.json" % self.build_kind, None, "1")
        recs = [load_records(a)[0] for a in arts]
        for rec in recs:
            if not rec.get("title") or not rec.get("group"):
                self.problems.append("%s artifact %s: no title or group" % (bug, rec.get("signature")))
        if self.build_kind == "tsan" and not any(
                rec.get("tsan_api") and any(m.get("class") for m in rec.get("mutexes", []))
                for rec in recs):
            self.problems.append("%s: no TSan artifact names a lock class" % bug)

    def produce(self):
        # run --rmap all --json: one run record per design, one per line.
        out = self.run(0, "run", "--rmap", "all", "--seconds", "0.05", "--threads", "2",
                       "--seed", BIG_SEED, "--json", "--out", "run", "--no-progress")
        lines = out.splitlines()
        designs = []
        for i, line in enumerate(lines):
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                self.problems.append("run --json line %d: not JSON (%s): not one record"
                                     " per line" % (i + 1, e))
                break
            self.check("run --json line %d" % (i + 1), rec, BIG_SEED)
            designs.append(rec.get("rmap") if isinstance(rec, dict) else rec)
        if designs != ["ptechain", "objfile", "anonvma", "mainline8", "mainline9"]:
            self.problems.append("run --rmap all --json: lines for %s" % designs)
        runs = self.check_files("run/run-*.json", 5, BIG_SEED)
        # The schemas are strict: a renamed key, a mistyped seed, an old kind.
        if runs:
            rec = load_records(runs[0])[0]
            for what, change in (("'ops' renamed", lambda r: r.__setitem__("op", r.pop("ops"))),
                                 ("seed an integer", lambda r: r.__setitem__("seed", 1)),
                                 ("'kind' as well", lambda r: r.__setitem__("kind", "run"))):
                bad = json.loads(json.dumps(rec))
                change(bad)
                if not validate(self.schemas, what, bad):
                    self.problems.append("run schema: a record with %s validates" % what)

        # A seeded bug (under its own --sched random: the same reports for
        # the same seed): its failure artifacts, one replayed with the seed.
        self.run(1, "run", "--inject", "anon-index-absolute", "--seed", BIG_SEED,
                 "--no-progress", "--out", "bug")
        arts = self.check_files("bug/failure-*.json", None, BIG_SEED)
        self.check_files("bug/run-*.json", 1, BIG_SEED)
        self.produce_sanitizer()
        if arts:
            self.run(0, "replay", arts[0], "--times", "1", "--quiet", "--out", "replay")
            self.check_files("replay/failure-*.json", None, BIG_SEED)

        self.check("explore --json", json.loads(self.run(
            0, "explore", "--ops", "read,read", "-k", "0", "--seed", BIG_SEED, "--json",
            "--no-progress")), BIG_SEED)
        self.check("locks --json", json.loads(self.run(
            0, "locks", "--threads", "2", "--seconds", "0.05", "--pages", "64", "--seed",
            BIG_SEED, "--json")), BIG_SEED)
        # 0.2 s: a 0.05 s point made no operation in a loaded CI run.
        self.run(0, "scale", "--threads", "1", "--rmap", "anonvma", "--repeat", "1",
                 "--seconds", "0.2", "--seed", BIG_SEED, "--out", "scale", "--no-plots")
        self.check_files("scale/scale.json", 1, BIG_SEED)
        self.run(0, "bench", "locks", "--iterations", "1000", "--repeat", "1", "--threads", "2",
                 "--seconds", "0.05", "--json", "bench-locks.json")
        self.check_files("bench-locks.json", 1)
        # bench vm's in-process measurements (every design's model code in
        # its own ways: the Oracle case, try_to_unmap sweeps, disjoint mms)
        # and their record, at the smallest sizes; under ASan too, which the
        # numbers test (plain build) leaves. One thread: not under TSan.
        if self.build_kind != "tsan":
            self.run(0, "bench", "vm", "--repeat", "1", "--seconds", "0.01", "--quick",
                     "--scaling-max", "1", "--json", "bench-vm.json")
            self.check_files("bench-vm.json", 1)
        self.run(0, "run", "--sched", "cover", "--cover-map", "cover-map.json", "--seconds",
                 "0.02", "--threads", "2", "--no-progress")
        self.check_files("cover-map.json", 1)
        # The stored shards are of format_version 1: ci-merge still reads them.
        shards = os.path.join(self.root, "tests", "data", "ci-shards")
        self.run(0, "ci-merge", "--json", "ci.json", os.path.join(shards, "shard-1-of-2.json"),
                 os.path.join(shards, "shard-2-of-2.json"))
        self.check_files("ci.json", 1)


def main(argv):
    if len(argv) >= 5 and argv[1] == "--produce":
        binary, schemas, root = os.path.abspath(argv[2]), argv[3], os.path.abspath(argv[4])
        kind = argv[5] if len(argv) >= 6 else "plain"
        tmp = tempfile.mkdtemp(prefix="rt-records-")
        try:
            p = Producer(binary, schemas, root, tmp, kind)
            p.produce()
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        problems, kinds = p.problems, p.kinds
    elif len(argv) >= 3 and not argv[1].startswith("-"):
        problems, kinds = validate_files(argv[1], argv[2:])
    else:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    for line in problems[:50]:
        print("not ok: " + line)
    print("%d problems; record kinds checked: %s" % (len(problems),
                                                    ", ".join(sorted(map(str, kinds)))))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
