#!/usr/bin/env python3
"""The host's Python work of a batch, without the device's: Context.filter_batch of 1,000 gray
1080p uint8 arrays, as a list and as one N x H x W array, with the library call itself stubbed
out (Context._run_batch), 5 batches each (the first makes the result block); prints each form's
times, ascending, in ms. On any device (the context opens one; nothing runs on it).

    PYTHONPATH=python python3 bench/batch_overhead.py [DEVICE]      (DEVICE default cpu)
"""
import sys
import time

import numpy as np

import tiledconv

ctx = tiledconv.Context(sys.argv[1] if len(sys.argv) > 1 else "cpu")
ctx._run_batch = lambda *a: None  # the tables and results are made; nothing is enqueued
imgs = [np.zeros((1080, 1920), np.uint8) for _ in range(1000)]
stack = np.stack(imgs)
kx = [0.0625, 0.25, 0.375, 0.25, 0.0625]
for name, batch in (("list", imgs), ("array", stack)):
    ts = []
    for _ in range(5):
        t = time.perf_counter()
        r = ctx.filter_batch(batch, kx=kx, ky=kx)
        ts.append(time.perf_counter() - t)
        del r
    print(name, " ".join("%.1f" % (1000 * x) for x in sorted(ts)), "ms")
