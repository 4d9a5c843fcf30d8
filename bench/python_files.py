#!/usr/bin/env python3
"""Python's filter_files against the command line on the benchmark suite's photo rows: the same
folder of JPEG photos (bench/make_photos.py, 1920 x 1080, quality 90), the same options, each
contender a whole process, alternating, TRIES tries after one untimed run each (programs built).
The command line is timed as a whole process (the user's wait); Python inside its script,
around filter_files (its interpreter and imports are not the pipeline's), and as a whole process
too. Every try's outputs are compared with the command line's, byte for byte.

    python3 bench/python_files.py WORK OUT.csv [--photos 1000] [--tries 5] [--device gpu]
    python3 bench/python_files.py /tmp/w out.csv --photos 8 --tries 1 --device cpu   # a check

Prints a table: per row and contender, min / median / max seconds, and Python's inside median
over the command line's median.
"""
import argparse
import csv
import filecmp
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The rows of bench/e2e-peers.sh that read JPEG photos: (name, command-line flags, keywords).
ROWS = [
    ("gray, no sync, 5 taps", ["-f", "5", "--no-sync"], dict(taps=5, no_sync=True)),
    ("gray, synced, 5 taps", ["-f", "5"], dict(taps=5)),
    ("colour, synced, 5 taps", ["-f", "5", "--color"], dict(taps=5, color=True)),
    ("colour, synced, 31 taps", ["--filter", "gauss", "-f", "31", "--color"],
     dict(filter="gauss", taps=31, color=True)),
]

CHILD = """
import sys, time, glob, os
t_start = time.perf_counter()
import tiledconv
src, out, device, opts = sys.argv[1], sys.argv[2], sys.argv[3], eval(sys.argv[4])
files = sorted(glob.glob(os.path.join(src, "*")))
t0 = time.perf_counter()
res = tiledconv.filter_files(files, out, device=device, **opts)
t1 = time.perf_counter()
bad = [r.message for r in res if not r.ok]
print("inside %.4f import %.4f written %d" % (t1 - t0, t0 - t_start, len(res) - len(bad)))
sys.exit(1 if bad else 0)
"""


def timed(cmd, env):
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return time.perf_counter() - t0, done


def same_tree(a, b):
    names = sorted(os.listdir(a))
    if names != sorted(os.listdir(b)):
        return False
    match, mismatch, errors = filecmp.cmpfiles(a, b, names, shallow=False)
    return not mismatch and not errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("work")
    ap.add_argument("out")
    ap.add_argument("--photos", type=int, default=1000)
    ap.add_argument("--tries", type=int, default=5)
    ap.add_argument("--device", default="gpu")
    ap.add_argument("--size", default="1920x1080")
    a = ap.parse_args()
    photos = os.path.join(a.work, "jpg")
    if not os.path.isdir(photos) or len(os.listdir(photos)) != a.photos:
        shutil.rmtree(photos, ignore_errors=True)
        subprocess.run([sys.executable, os.path.join(ROOT, "bench", "make_photos.py"), "--out",
                        photos, "--count", str(a.photos), "--size", a.size, "--format", "jpeg",
                        "--quality", "90"], check=True, stdout=subprocess.DEVNULL)
    for name in os.listdir(photos):  # every contender reads from the page cache
        with open(os.path.join(photos, name), "rb") as f:
            f.read()
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    tool = os.path.join(ROOT, "tiledconv")
    files = sorted(os.path.join(photos, n) for n in os.listdir(photos))
    rows = []
    for row, (label, flags, kw) in enumerate(ROWS, 1):
        def run(who, out):
            shutil.rmtree(out, ignore_errors=True)
            if who == "tiledconv":
                cmd = [tool, "--device", a.device, *flags, "-q", "-O", out, *files]
            else:
                cmd = [sys.executable, "-c", CHILD, photos, out, a.device, repr(kw)]
            whole, done = timed(cmd, env)
            if done.returncode != 0:
                sys.exit("%s, %s: exit %d: %s" % (label, who, done.returncode,
                                                   (done.stderr or done.stdout)[-400:]))
            inside = None
            if who == "python":
                inside = float(done.stdout.split()[1])
            return whole, inside
        out_cli, out_py = os.path.join(a.work, "out-cli"), os.path.join(a.work, "out-py")
        run("tiledconv", out_cli)  # untimed: programs built, caches warm
        run("python", out_py)
        for t in range(a.tries):
            order = ("tiledconv", "python") if t % 2 == 0 else ("python", "tiledconv")
            for who in order:
                whole, inside = run(who, out_cli if who == "tiledconv" else out_py)
                rows.append(dict(row=row, label=label, who=who, attempt=t + 1,
                                 whole_s="%.4f" % whole,
                                 inside_s="" if inside is None else "%.4f" % inside))
            same = same_tree(out_cli, out_py)
            rows[-1]["same_bytes"] = rows[-2]["same_bytes"] = int(same)
            if not same:
                sys.exit("%s: Python's outputs differ from the command line's" % label)
    with open(a.out, "w", newline="") as f:
        w = csv.DictWriter(f, ["row", "label", "who", "attempt", "whole_s", "inside_s",
                               "same_bytes"])
        w.writeheader()
        w.writerows(rows)
    print("photos: %d of %s, %d tries, --device %s" % (a.photos, a.size, a.tries, a.device))
    print("| row | command line, whole (s) | Python, inside (s) | Python, whole (s) | "
          "inside / command line |")
    print("|---|---|---|---|---|")
    for row, (label, _, _) in enumerate(ROWS, 1):
        def mmm(key, who):
            v = sorted(float(r[key]) for r in rows if r["row"] == row and r["who"] == who)
            return v, "%.3f / %.3f / %.3f" % (v[0], statistics.median(v), v[-1])
        cli, cli_s = mmm("whole_s", "tiledconv")
        py, py_s = mmm("inside_s", "python")
        _, pyw_s = mmm("whole_s", "python")
        print("| %s | %s | %s | %s | %.3f |" % (label, cli_s, py_s, pyw_s,
                                             statistics.median(py) / statistics.median(cli)))


if __name__ == "__main__":
    main()
