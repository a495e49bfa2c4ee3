#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The seeded-bug catalogue of docs/model.md, from `rmaptorture list --bugs`.

    doc_catalogue.py RMAPTORTURE            print the table
    doc_catalogue.py RMAPTORTURE DOC.md     check DOC's table is that table

The catalogue's source is stress/rt_inject.c; the doc's copy of it is made
by this script and checked by it (meson test doc-catalogue), so the two
cannot drift. Exit status: 0 the same, 1 a row differs, is missing or is
extra (each printed), 2 bad usage or a binary that did not answer.
"""

import re
import subprocess
import sys

HEADER = ['| bug | designs | detector | what it does | history |',
          '|---|---|---|---|---|']


def cell(text):
    return text.replace('|', '\\|')


def table(binary):
    """The catalogue's rows, in `list --bugs` order."""
    out = subprocess.run([binary, 'list', '--bugs'], check=True,
                         capture_output=True, text=True).stdout
    bugs = []
    for line in out.split('\n'):
        if line and not line.startswith(' '):
            bugs.append({'name': line})
            continue
        m = re.match(r'\s+(\w+):\s+(.*)', line)
        if m and bugs:
            bugs[-1][m.group(1)] = m.group(2)
    rows = []
    for b in bugs:
        designs = b.get('designs', 'all')
        designs = designs.replace('its code is in ', '').replace(' only', '').replace(',', ', ')
        rows.append('| `%s` | %s | %s | %s | %s |' % (
            b['name'], designs, b.get('detector', '').split(' (')[0],
            cell(b.get('bug', '')), cell(b.get('history', ''))))
    return rows


def doc_rows(path):
    """The rows of the table under HEADER in @path."""
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    for i in range(len(lines) - 1):
        if lines[i:i + 2] == HEADER:
            rows = []
            for line in lines[i + 2:]:
                if not line.startswith('|'):
                    break
                rows.append(line)
            return rows
    return None


def main(argv):
    if len(argv) not in (1, 2):
        print('usage: doc_catalogue.py RMAPTORTURE [DOC.md]', file=sys.stderr)
        return 2
    try:
        want = table(argv[0])
    except (OSError, subprocess.CalledProcessError) as e:
        print('doc_catalogue: %s list --bugs: %s' % (argv[0], e), file=sys.stderr)
        return 2
    if len(argv) == 1:
        print('\n'.join(HEADER + want))
        return 0
    have = doc_rows(argv[1])
    if have is None:
        print('doc_catalogue: %s: no catalogue table (header %s)' % (argv[1], HEADER[0]))
        return 1
    bad = 0
    for row in want:
        if row not in have:
            print('doc_catalogue: %s lacks: %s' % (argv[1], row))
            bad += 1
    for row in have:
        if row not in want:
            print('doc_catalogue: %s has, list --bugs does not: %s' % (argv[1], row))
            bad += 1
    if not bad and have != want:
        print('doc_catalogue: %s: the rows are not in list --bugs order' % argv[1])
        bad += 1
    print('doc_catalogue: %d bugs, %d differences' % (len(want), bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
