#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check the links of every Markdown file under a root directory.

A link (``[text](target)``, ``![alt](target)`` or ``[ref]: target``) is
dead when its file does not exist, when its ``#anchor`` is no heading of
the file it names (GitHub's slugs: lower case, punctuation dropped, spaces
to hyphens, ``-1``, ``-2`` for repeats), or when it leaves the root (an
absolute path, ``../`` above the root, ``file:``). Links to public sources
(``http:``, ``https:``, ``mailto:``) are not fetched. Links inside code
(fenced blocks, code spans) are not links.

Exit status: 0 every link alive, 1 a dead link (each printed as
``FILE:LINE: dead link TARGET: REASON``), 2 bad usage. With
``--expect-dead N`` (the checker's own test, on a fixture with dead links
in it) the status is 0 exactly when N dead links were found.
"""

import argparse
import os
import re
import sys

EXTERNAL = ('http://', 'https://', 'mailto:')
SKIP_DIRS = ('.', 'build')   # hidden folders and build trees (build, build-tsan, ...)

FENCE_RE = re.compile(r'^ {0,3}(`{3,}|~{3,})')
CODE_SPAN_RE = re.compile(r'(`+)(.+?)\1', re.S)
LINK_RE = re.compile(r'!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*<?([^()\s<>]*)>?(?:\s+"[^"]*")?\s*\)')
REFDEF_RE = re.compile(r'^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$', re.M)
ATX_RE = re.compile(r'^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$')
SETEXT_RE = re.compile(r'^ {0,3}(=+|-+)\s*$')
HTML_ANCHOR_RE = re.compile(r'<a\s+(?:name|id)="([^"]+)"', re.I)


def blank_code(text):
    """Return @text with fenced blocks and code spans blanked (newlines
    kept, so offsets still give line numbers), and the fenced flag of each
    line."""
    lines = text.split('\n')
    fenced = []
    fence = None
    for i, line in enumerate(lines):
        m = FENCE_RE.match(line)
        if fence is None and m:
            fence = m.group(1)[0] * 3
            fenced.append(True)
            lines[i] = ''
        elif fence is not None:
            fenced.append(True)
            if line.lstrip().startswith(fence):
                fence = None
            lines[i] = ''
        else:
            fenced.append(False)
    text = '\n'.join(lines)
    text = CODE_SPAN_RE.sub(lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text)
    return text, fenced


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', heading)   # a link: its text
    text = re.sub(r'<[^>]+>', '', text)                          # inline HTML
    text = text.strip().lower()
    text = ''.join(c for c in text if c.isalnum() or c in ' -_')
    return text.replace(' ', '-')


def anchors(text):
    """The anchors of a Markdown file: its headings' slugs and HTML ids."""
    found = set()
    seen = {}
    lines = text.split('\n')
    _, fenced = blank_code(text)
    for i, line in enumerate(lines):
        if fenced[i]:
            continue
        heading = None
        m = ATX_RE.match(line)
        if m:
            heading = m.group(2)
        elif (i > 0 and SETEXT_RE.match(line) and not fenced[i - 1]
              and lines[i - 1].strip() and not lines[i - 1].lstrip().startswith(('|', '#', '-', '*', '>'))):
            heading = lines[i - 1]
        if heading is None:
            continue
        s = slug(heading)
        n = seen.get(s, 0)
        seen[s] = n + 1
        found.add(s if n == 0 else '%s-%d' % (s, n))
    found.update(HTML_ANCHOR_RE.findall(text))
    return found


def targets(text):
    """(line, target) of every link of a Markdown text, code excluded."""
    code_free, _ = blank_code(text)
    out = []
    for m in LINK_RE.finditer(code_free):
        out.append((code_free.count('\n', 0, m.start()) + 1, m.group(2)))
    for m in REFDEF_RE.finditer(code_free):
        out.append((code_free.count('\n', 0, m.start()) + 1, m.group(1)))
    return out


def markdown_files(root, excludes):
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        dirnames[:] = sorted(d for d in dirnames
                             if not d.startswith(SKIP_DIRS)
                             and os.path.normpath(os.path.join(rel, d)) not in excludes)
        for f in sorted(filenames):
            if f.endswith('.md'):
                yield os.path.join(dirpath, f)


def check_file(path, root, cache):
    """The dead links of one file, as (line, target, reason)."""
    dead = []
    with open(path, encoding='utf-8') as f:
        text = f.read()
    for line, target in targets(text):
        if target.startswith(EXTERNAL):
            continue
        if not target or re.match(r'^[a-z][a-z0-9+.-]*:', target, re.I):
            dead.append((line, target, 'not a relative link or a public URL'))
            continue
        if target.startswith('/'):
            dead.append((line, target, 'an absolute path leaves the repository'))
            continue
        file_part, _, frag = target.partition('#')
        dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
        if os.path.relpath(dest, root).startswith(os.pardir):
            dead.append((line, target, 'leaves the repository'))
            continue
        if not os.path.exists(dest):
            dead.append((line, target, 'no such file'))
            continue
        if not frag:
            continue
        if not dest.endswith('.md') or os.path.isdir(dest):
            dead.append((line, target, 'an anchor into a file that is not Markdown'))
            continue
        if dest not in cache:
            with open(dest, encoding='utf-8') as f:
                cache[dest] = anchors(f.read())
        if frag not in cache[dest]:
            dead.append((line, target, 'no heading with that anchor'))
    return dead


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--root', default='.', help='the repository root (default: .)')
    ap.add_argument('--exclude', action='append', default=[], metavar='DIR',
                    help='a folder under the root to leave out (repeatable)')
    ap.add_argument('--expect-dead', type=int, metavar='N',
                    help='succeed only if exactly N dead links are found')
    args = ap.parse_args(argv)
    root = os.path.abspath(args.root)
    if not os.path.isdir(root):
        print('check_links: --root %s: not a directory' % args.root, file=sys.stderr)
        return 2
    excludes = {os.path.normpath(e) for e in args.exclude}
    cache = {}
    files = 0
    dead = 0
    for path in markdown_files(root, excludes):
        files += 1
        for line, target, reason in check_file(path, root, cache):
            dead += 1
            print('%s:%d: dead link %s: %s' % (os.path.relpath(path, root), line, target, reason))
    print('check_links: %d files, %d dead links' % (files, dead))
    if args.expect_dead is not None:
        return 0 if dead == args.expect_dead else 1
    return 1 if dead else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
