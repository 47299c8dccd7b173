#!/usr/bin/env python3
"""Split perf samples of a client process into categories of work, user
and kernel apart, averaged over runs. Used for BENCHMARKS.md#framing-in-place
and what followed. Each input is `perf script -F ip,sym` of a run recorded with

    perf record -e cpu-clock -F 20000 -g -o FILE.data CLIENT ...
    perf script -i FILE.data -F ip,sym > FILE.script

    scripts/perf-categories.py a1.script a2.script -- b1.script b2.script

A sample goes to the first category whose marker appears in its stack
(CATS order); a leaf symbol with a Go package path counts as user time.
"""
import collections
import sys

CATS = [('morestack', 'stack growth'), ('gcBgMarkWorker', 'gc'), ('gcDrain', 'gc'), ('bgsweep', 'gc'),
        ('mallocgc', 'malloc'), ('Stream).Add', 'records'), ('Collector).Feed', 'parse+collect'),
        ('conn).Read', 'socket read'), ('directBody).Read', 'framing'), ('main.main.func1', 'floor main'),
        ('Client).do', 'request'), ('Client).Send', 'send other'), ('mcall', 'scheduler'),
        ('schedule', 'scheduler'), ('sysmon', 'sysmon')]


def load(path):
    stacks, cur = [], []
    for line in open(path):
        line = line.strip()
        if not line:
            if cur:
                stacks.append(cur)
                cur = []
            continue
        parts = line.split(None, 1)
        cur.append(parts[1] if len(parts) > 1 else '?')
    if cur:
        stacks.append(cur)
    return stacks


def is_user(leaf):
    return ('.' in leaf and not leaf.startswith(('[', '__', '_raw'))) or leaf.startswith('__vdso') or 'abi0' in leaf


def category(stack):
    joined = ' '.join(stack)
    for marker, name in CATS:
        if marker in joined:
            return name
    return 'other'


def tally(paths):
    user, kernel = collections.Counter(), collections.Counter()
    for p in paths:
        for s in load(p):
            (user if is_user(s[0]) else kernel)[category(s)] += 1
    n = max(len(paths), 1)
    return {k: v / n for k, v in user.items()}, {k: v / n for k, v in kernel.items()}


def main():
    args = sys.argv[1:]
    groups = [args] if '--' not in args else [args[:args.index('--')], args[args.index('--') + 1:]]
    tallies = [tally(g) for g in groups]
    names = sorted({k for u, k_ in tallies for k in list(u) + list(k_)}, key=lambda k: -tallies[0][0].get(k, 0))
    print('%-14s' % 'category' + ''.join('  user %c  kernel %c' % (c, c) for c in 'AB'[:len(groups)]))
    for k in names:
        print('%-14s' % k + ''.join('%8.0f %9.0f' % (u.get(k, 0), kn.get(k, 0)) for u, kn in tallies))
    print('%-14s' % 'total' + ''.join('%8.0f %9.0f' % (sum(u.values()), sum(kn.values())) for u, kn in tallies))


if __name__ == '__main__':
    main()
