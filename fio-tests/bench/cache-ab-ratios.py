#!/usr/bin/env python3
"""Per repeat: cache on / cache off IOPS and CPU per I/O from a run-bench.sh --cache-ab results.json.

usage: cache-ab-ratios.py RESULTS_DIR   (the --out directory of run-bench.sh --cache-ab)
"""
import collections
import json
import sys

results = json.load(open(sys.argv[1] + '/results.json'))
cells = collections.defaultdict(dict)
for s in results['samples']:
    cells[(s['cell'], s['repeat'])][s['target']] = (s['fio']['iops'], s['targetCpuSeconds'] / s['fio']['totalIos'] * 1e6)
for (cell, rep), t in sorted(cells.items()):
    on, off, tgtd = t['per-lun'], t['cache-off'], t['tgtd']
    print('%-16s r%d  on/off IOPS %.2f  CPU/IO on %.1f us off %.1f us   on/tgtd %.2f  off/tgtd %.2f'
          % (cell, rep, on[0] / off[0], on[1], off[1], on[0] / tgtd[0], off[0] / tgtd[0]))
