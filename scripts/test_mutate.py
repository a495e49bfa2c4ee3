#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tests of scripts/mutate: each operator's exact edit on a fixture, the
sampler's reproducibility, and run's verdicts on a fixture project whose
gate is a shell one-liner (no build)."""

import importlib.machinery
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, 'mutate')
DATA = os.path.join(HERE, '..', 'tests', 'data', 'mutate')
PROJ = os.path.join(DATA, 'proj')

_loader = importlib.machinery.SourceFileLoader('mutate', SCRIPT)
_spec = importlib.util.spec_from_loader('mutate', _loader)
mutate = importlib.util.module_from_spec(_spec)
_loader.exec_module(mutate)


def fixture():
    with open(os.path.join(DATA, 'fixture.c')) as f:
        return f.read()


def edit(op, line):
    """The fixture's lines after the one mutant of @op at @line, and the original."""
    text = fixture()
    ms = [m for m in mutate.mutants_of('fixture.c', text, [op]) if m['line'] == line]
    assert len(ms) == 1, (op, line, ms)
    return mutate.apply(text, ms[0]).split('\n'), text.split('\n')


class Operators(unittest.TestCase):
    def check(self, op, line, want):
        """@want: {1-based line: new text}; every other line unchanged."""
        new, old = edit(op, line)
        self.assertEqual(len(new), len(old))
        for i, (a, b) in enumerate(zip(old, new)):
            self.assertEqual(b, want.get(i + 1, a), 'line %d' % (i + 1))

    def test_drop_pair(self):
        self.check('drop-pair', 6, {
            6: '\t/* mutate: spin_lock(&mm->page_table_lock) dropped */;',
            8: '\t/* mutate: spin_unlock(&mm->page_table_lock) dropped */;'})
        self.check('drop-pair', 26, {
            26: '\t/* mutate: page_map_lock(page) dropped */;',
            28: '\t/* mutate: page_map_unlock(page) dropped */;'})

    def test_unlock_up(self):
        self.check('unlock-up', 8, {7: '\tspin_unlock(&mm->page_table_lock);',
                                    8: '\tmm->rss++;'})

    def test_lock_down(self):
        self.check('lock-down', 6, {6: '\tmm->rss++;',
                                    7: '\tspin_lock(&mm->page_table_lock);'})

    def test_swap_acq(self):
        self.check('swap-acq', 25, {25: '\tpage_map_lock(page);',
                                    26: '\tdown_write(&a->mmap_sem);'})

    def test_store_out(self):
        self.check('store-out', 17, {17: '\tspin_unlock(&mm->page_table_lock);',
                                     18: '\tSetPageDirty(page);'})

    def test_list_swap(self):
        self.check('list-swap', 27, {27: '\tlist_add_tail(&x->list, &head);'})

    def test_atomic_plain(self):
        self.check('atomic-plain', 30, {30: '\tn = (a->count);'})
        self.check('atomic-plain', 31, {31: '\t(b->flags = (n | 1));'})

    def test_recheck_drop(self):
        self.check('recheck-drop', 14, {14: '\tif (0)'})

    def test_every_operator_has_a_site(self):
        ops = {m['op'] for m in mutate.mutants_of('fixture.c', fixture(), mutate.OPS)}
        self.assertEqual(ops, set(mutate.OPS))


def multiline():
    with open(os.path.join(DATA, 'multiline.c')) as f:
        return f.read()


def line_of(text, needle, after=1):
    """The 1-based number of the first line at or after @after holding @needle."""
    ls = text.split('\n')
    return next(i + 1 for i in range(after - 1, len(ls)) if needle in ls[i])


class MultiLine(unittest.TestCase):
    """Statements and calls that span lines are moved or dropped whole; what
    is not a whole statement (an if's body, two statements on a line, a name
    in a comment or a string) is no site."""

    def setUp(self):
        self.text = multiline()
        self.old = self.text.split('\n')
        self.ms = mutate.mutants_of('multiline.c', self.text, mutate.OPS)

    def at(self, op, needle, after=1):
        n = line_of(self.text, needle, after)
        return [m for m in self.ms if m['op'] == op and m['line'] == n]

    def check(self, m, want):
        """@want: {1-based line: new text}; every other line unchanged."""
        new = mutate.apply(self.text, m).split('\n')
        self.assertEqual(len(new), len(self.old))
        for i, (a, b) in enumerate(zip(self.old, new)):
            self.assertEqual(b, want.get(i + 1, a), 'line %d' % (i + 1))

    def test_multiline_lock_call_dropped_whole(self):
        [m] = self.at('drop-pair', 'spin_lock_nested(&b->l,')
        n = line_of(self.text, 'spin_lock_nested(&b->l,')
        self.check(m, {n: '\t/* mutate: spin_lock_nested(&b->l, 1) dropped */;', n + 1: '',
                       n + 3: '\t/* mutate: spin_unlock(&b->l) dropped */;'})

    def test_multiline_lock_call_moved_whole(self):
        n = line_of(self.text, 'spin_lock_nested(&b->l,')
        [m] = self.at('lock-down', 'spin_lock_nested(&b->l,')
        self.check(m, {n: '\tb->n++;', n + 1: '\tspin_lock_nested(&b->l,',
                       n + 2: '\t\t\t 1);'})
        [m] = self.at('swap-acq', 'spin_lock(&a->l);')
        self.check(m, {n - 1: '\tspin_lock_nested(&b->l,', n: '\t\t\t 1);',
                       n + 1: '\tspin_lock(&a->l);'})

    def test_multiline_statement_moved_whole(self):
        n = line_of(self.text, 'x->total = x->a +')
        [m] = self.at('store-out', 'x->total = x->a +')
        self.assertIn('`x->total = x->a + x->b;`', m['desc'])
        self.check(m, {n: '\tspin_unlock(&x->l);', n + 1: '\tx->total = x->a +',
                       n + 2: '\t\t   x->b;'})
        n = line_of(self.text, 'bump(x,')
        [m] = self.at('unlock-up', 'spin_unlock(&x->l);', n)
        self.check(m, {n: '\tspin_unlock(&x->l);', n + 1: '\tbump(x,', n + 2: '\t     1);'})

    def test_multiline_recheck(self):
        n = line_of(self.text, 'if (x->a &&')
        [m] = self.at('recheck-drop', 'if (x->a &&')
        self.assertIn('`if (x->a && x->b)`', m['desc'])
        self.assertIn('made if (1)', m['desc'])     # it guards an action
        self.check(m, {n: '\tif (1', n + 1: '\t    )'})
        # A bail-out: its block's last statement leaves.
        [m] = self.at('recheck-drop', 'if (x->n > 9) {')
        self.assertIn('made if (0)', m['desc'])

    def test_if_body_is_no_site_to_move(self):
        f = line_of(self.text, 'void ml_cond')
        for op in ('lock-down', 'unlock-up', 'swap-acq', 'store-out'):
            self.assertEqual(self.at(op, 'spin_lock(&x->l);', f), [], op)
            self.assertEqual(self.at(op, 'spin_unlock(&x->l);', f), [], op)
        # Dropped, the conditional pair stays well formed: `if (c) ;`.
        [m] = self.at('drop-pair', 'spin_lock(&x->l);', f)
        n = line_of(self.text, 'spin_lock(&x->l);', f)
        self.check(m, {n: '\t\t/* mutate: spin_lock(&x->l) dropped */;',
                       n + 3: '\t\t/* mutate: spin_unlock(&x->l) dropped */;'})
        # A statement after `if (c) /* comment */` is that if's body.
        f = line_of(self.text, 'void ml_comment')
        self.assertEqual(self.at('unlock-up', 'spin_unlock(&x->l);', f), [])

    def test_no_site_in_comments_strings_or_shared_lines(self):
        for op in ('list-swap', 'atomic-plain'):
            self.assertEqual([m for m in self.ms if m['op'] == op], [], op)
        f = line_of(self.text, 'void ml_oneline')
        self.assertEqual(self.at('unlock-up', 'spin_unlock(&x->l);', f), [])
        self.assertEqual(self.at('store-out', 'x->a = 1; x->b = 2;', f), [])
        # A release that is no call statement of its own: the pair is no site.
        self.assertEqual(self.at('drop-pair', 'spin_lock(&y->l);', f), [])

    def test_every_mutant_compiles(self):
        cc = shutil.which('cc')
        if not cc:
            self.skipTest('no C compiler')
        self.assertGreater(len(self.ms), 10)
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for n, m in enumerate(self.ms):
                paths.append(os.path.join(d, 'm%d.c' % n))
                with open(paths[-1], 'w') as f:
                    f.write(mutate.apply(self.text, m))
            # One compiler run for all: its errors name the file, m<index>.c.
            r = subprocess.run([cc, '-fsyntax-only'] + paths, capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, '%s\n%s' % (
                '\n'.join('m%d.c: %s' % (n, mutate.show(m)) for n, m in enumerate(self.ms)),
                r.stderr))


def cli(*args, **kw):
    return subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True,
                          text=True, timeout=30, **kw)


class Sampler(unittest.TestCase):
    def test_reproducible(self):
        ms = mutate.mutants_of('fixture.c', fixture(), mutate.OPS)
        a = mutate.pick(ms, 7, 5)
        self.assertEqual(a, mutate.pick(ms, 7, 5))
        self.assertEqual(len(a), 5)
        runs = [cli('sample', '--root', DATA, '--files', 'fixture.c', '--seed', '3',
                    '--count', '4').stdout for _ in range(2)]
        self.assertEqual(runs[0], runs[1])
        self.assertEqual(len(runs[0].splitlines()), 4)
        other = cli('sample', '--root', DATA, '--files', 'fixture.c', '--seed', '4',
                    '--count', '4').stdout
        self.assertNotEqual(runs[0], other)

    def test_only(self):
        r = cli('list', '--root', DATA, '--files', 'fixture.c',
                '--only', 'fixture.c:27:list-swap,fixture.c:6:lock-down')
        self.assertEqual([l.split('\t')[:2] for l in r.stdout.splitlines()],
                         [['fixture.c:27', 'list-swap'], ['fixture.c:6', 'lock-down']])
        r = cli('list', '--root', DATA, '--files', 'fixture.c', '--only', 'fixture.c:5:list-swap')
        self.assertEqual(r.returncode, 2)

    def test_bad_input(self):
        for args in (['list', '--ops', 'nope'], ['sample', '--seed', '1'], ['frob'],
                     ['list', '--root', DATA, '--files', 'missing.c']):
            r = cli(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)


# The gate kills a mutant that drops the lock; nothing else.
GATE = "grep -q '\tspin_lock(&l);' core/lock.c"


class Run(unittest.TestCase):
    def run_fixture(self, *extra, ops='drop-pair,list-swap'):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, 'r.json')
            r = cli('run', '--root', PROJ, '--files', 'core/*.c', '--ops', ops,
                    '--seed', '1', '--count', '10', '--out', out, '--setup-cmd', 'true',
                    '--build-cmd', 'true', '--smoke-cmd', 'true', *extra)
            with open(out) as f:
                rep = json.load(f)
        return r, rep

    def verdicts(self, rep):
        return {m['op']: m['status'] for m in rep['mutants']}

    def test_killed_and_survived(self):
        r, rep = self.run_fixture('--cmd', GATE)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.verdicts(rep), {'drop-pair': 'killed', 'list-swap': 'survived'})
        self.assertEqual(rep['score'], 0.5)
        self.assertFalse(rep['partial'])
        self.assertIn('survived\tcore/lock.c:9\tlist-swap', r.stdout)
        with open(os.path.join(PROJ, 'core', 'lock.c')) as f:
            self.assertIn('\tlist_add(&e, &h);', f.read())

    def test_two_gates_paired(self):
        r, rep = self.run_fixture('--cmd', GATE, '--cmd', 'true')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([g['score'] for g in rep['gates']], [0.5, 0.0])
        self.assertEqual(rep['score'], 0.5)
        st = {m['op']: [g['status'] for g in m['gates']] for m in rep['mutants']}
        self.assertEqual(st, {'drop-pair': ['killed', 'survived'],
                              'list-swap': ['survived', 'survived']})
        self.assertIn('killed/survived\tcore/lock.c', r.stdout)

    def test_timeout_counts_as_killed(self):
        r, rep = self.run_fixture('--cmd', GATE + ' || sleep 20', '--timeout', '1')
        self.assertEqual(self.verdicts(rep)['drop-pair'], 'killed')
        self.assertEqual(rep['counts']['timed-out'], 1)

    def test_skipped(self):
        _, rep = self.run_fixture('--cmd', GATE, '--build-cmd',
                                  '! grep -q list_add_tail core/lock.c',
                                  '--smoke-cmd', GATE, '--no-baseline')
        self.assertEqual(self.verdicts(rep), {'drop-pair': 'trivially-killed',
                                              'list-swap': 'build-failed'})
        self.assertIsNone(rep['score'])

    def test_baseline_failure(self):
        r = cli('run', '--root', PROJ, '--seed', '1', '--count', '1', '--cmd', 'false',
                '--setup-cmd', 'true', '--build-cmd', 'true', '--smoke-cmd', 'true')
        self.assertEqual(r.returncode, 1)

    def test_interrupt_writes_partial(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, 'r.json')
            p = subprocess.Popen([sys.executable, SCRIPT, 'run', '--root', PROJ,
                                  '--seed', '1', '--count', '10', '--out', out,
                                  '--cmd', 'sleep 30', '--no-baseline', '--setup-cmd',
                                  'true', '--build-cmd', 'true', '--smoke-cmd', 'true'],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            p.stderr.readline()     # the scratch copy is made: run is measuring
            time.sleep(0.3)
            p.send_signal(signal.SIGINT)
            p.communicate(timeout=20)
            self.assertEqual(p.returncode, 130)
            with open(out) as f:
                self.assertTrue(json.load(f)['partial'])


if __name__ == '__main__':
    unittest.main()
