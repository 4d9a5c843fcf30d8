#!/usr/bin/env python3
"""The table of bench/roofline.sh: each case against its roofline and against CuPy.

    python3 bench/roofline_table.py OUTDIR

reads OUTDIR/roofline.csv (bench/roofline.c's records), OUTDIR/clpeak.txt (clpeak
--compute-sp on the same device, same run) and, where it exists, OUTDIR/cupy.csv
(bench/cupy_roofline.py), and writes OUTDIR/table.csv and OUTDIR/table.md (also printed):

  kernel ms     median of the device events of a run (three launches for colour)
  copy ms       the device's copy of the same bytes (planes x ROI floats), same process
  FMA floor ms  multiply-adds the filter needs (taps_x + taps_y a pixel, a mask's w x h) x
                pixels x planes / clpeak's best single-precision rate (GFLOPS / 2)
  roofline ms   max(copy, FMA floor)
  share         roofline / kernel: 80 % is the separable target (kernel <= 1.25 x roofline),
                70 % the masks' (<= 1.4 x)
  CuPy ms, x    CuPy's median for the same size, planes and filter, and CuPy / kernel

then, for the variant study (the cases labelled v:...), each variant's share per length and the
best variant per band with its geometric-mean share: the figures to choose the defaults from
(launch.c's default tables).
"""
import csv
import math
import os
import re
import sys

BANDS = [(3, 9), (11, 15), (17, 21), (23, 41), (43, 63)]


def clpeak_gflops(path):
    """The best single-precision figure of clpeak --compute-sp (GFLOPS, a multiply-add = 2)."""
    best, inside = 0.0, False
    with open(path) as f:
        for line in f:
            if "Single-precision compute" in line:
                inside = True
                continue
            if inside:
                m = re.match(r"\s*float\d*\s*:\s*([0-9.]+)", line)
                if m:
                    best = max(best, float(m.group(1)))
                elif line.strip():
                    inside = False
    return best


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [r for r in csv.DictReader(line for line in f if not line.startswith("#"))]


def filter_name(r):
    if r["mask"]:
        return "mask " + r["mask"]
    tx, ty = int(r["taps_x"]), int(r["taps_y"])
    return "%d taps" % tx if tx == ty else "%dx%d taps" % (tx, ty)


def peer_key(r):
    """A case's filter as CuPy's records name it. A mask and a separable filter of the same
    lengths (mask 3x3, 3 taps a side) are different filters: the kind is part of the key."""
    if r["mask"]:
        return (r["size"], r["planes"], "mask", r["mask"])
    return (r["size"], r["planes"], "separable", "%sx%s" % (r["taps_x"], r["taps_y"]))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    rows = read_csv(os.path.join(out, "roofline.csv"))
    gflops = clpeak_gflops(os.path.join(out, "clpeak.txt")) if os.path.exists(
        os.path.join(out, "clpeak.txt")) else 0.0
    fma_rate = gflops * 1e9 / 2.0  # multiply-adds a second
    cupy = {}
    for r in read_csv(os.path.join(out, "cupy.csv")):
        cupy[peer_key(r)] = float(r["cupy_ms_median"])
    table = []
    for r in rows:
        if r.get("error"):
            table.append(dict(r, filter=filter_name(r), note=r["error"]))
            continue
        w, h = (int(v) for v in r["size"].split("x"))
        planes = int(r["planes"])
        kernel = float(r["kernel_ms_median"])
        copy = float(r["copy_ms"])
        fma = int(r["fma_per_pixel"]) * w * h * planes
        floor = fma / fma_rate * 1e3 if fma_rate > 0 else 0.0
        roof = max(copy, floor)
        peer = cupy.get(peer_key(r))
        # share_exact, unrounded, for the bands' geometric means: a kernel built without the
        # optimiser on PoCL (make test's smoke run) has a share under 0.05 %, printed as 0.0.
        share = 100.0 * roof / kernel
        table.append(dict(r, filter=filter_name(r), floor="%.4f" % floor, roofline="%.4f" % roof,
                          share="%.1f" % share, share_exact=share,
                          cupy_ms="%.4f" % peer if peer else "",
                          cupy_ratio="%.2f" % (peer / kernel) if peer else "",
                          note=""))
    cols = ["label", "size", "planes", "border", "filter", "variant", "kernel",
            "kernel_ms_median", "copy_ms", "floor", "roofline", "share", "cupy_ms",
            "cupy_ratio", "build_ms", "tile", "verified", "note"]
    with open(os.path.join(out, "table.csv"), "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        wr.writeheader()
        for t in table:
            wr.writerow(t)

    lines = ["FMA peak: clpeak %.0f GFLOPS single precision = %.2f T multiply-adds/s%s"
             % (gflops, fma_rate / 1e12, "" if gflops else " (no clpeak.txt: FMA floors are 0)"),
             "",
             "| case | size | planes | border | filter | variant | kernel ms | copy ms | "
             "FMA floor ms | roofline ms | share | CuPy ms | CuPy / kernel |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for t in table:
        if t.get("note"):
            lines.append("| %s | %s | %s | %s | %s | %s | error: %s |||||||"
                         % (t["label"], t["size"], t["planes"], t["border"], t["filter"],
                            t.get("variant", ""), t["note"]))
            continue
        lines.append("| %s | %s | %s | %s | %s | %s | %.4f | %.4f | %s | %s | %s %% | %s | %s |"
                     % (t["label"], t["size"], t["planes"], t["border"], t["filter"],
                        t["variant"], float(t["kernel_ms_median"]), float(t["copy_ms"]),
                        t["floor"], t["roofline"], t["share"], t["cupy_ms"] or "-",
                        t["cupy_ratio"] or "-"))

    # The targets, over the cases run with the defaults (labelled d:...).
    final = [t for t in table if t["label"].startswith("d:") and not t.get("note")]
    if final:
        def short(t):
            return "%s %s %sp %s %s%%" % (t["filter"], t["size"], t["planes"], t["border"],
                                         t["share"])
        sep = [t for t in final if not t["mask"]]
        msk = [t for t in final if t["mask"]]
        miss_sep = [t for t in sep if float(t["share"]) < 80.0]
        miss_msk = [t for t in msk if float(t["share"]) < 70.0]
        peer = [t for t in final if t["cupy_ratio"] and (
            int(t["mask"].split("x")[0]) if t["mask"] else max(int(t["taps_x"]),
                                                                int(t["taps_y"]))) >= 7]
        miss_peer = [t for t in peer if float(t["cupy_ratio"]) < 5.0]
        lines += ["", "Targets over the default cases (d:...):", "",
                  "- separable, share >= 80 %%: %d of %d%s" % (
                      len(sep) - len(miss_sep), len(sep),
                      "; short: " + ", ".join(short(t) for t in miss_sep[:12]) +
                      (" ..." if len(miss_sep) > 12 else "") if miss_sep else ""),
                  "- masks, share >= 70 %%: %d of %d%s" % (
                      len(msk) - len(miss_msk), len(msk),
                      "; short: " + ", ".join(short(t) for t in miss_msk[:12]) if miss_msk
                      else ""),
                  "- CuPy / kernel >= 5 from 7 taps: %d of %d%s" % (
                      len(peer) - len(miss_peer), len(peer),
                      "; short: " + ", ".join("%s %s %sp %sx" % (
                          t["filter"], t["size"], t["planes"], t["cupy_ratio"])
                          for t in miss_peer[:12]) if miss_peer else "")]

    # The variant study: cases labelled v:VARIANT:...; per band the geometric mean share.
    study = [t for t in table if t["label"].startswith("v:") and not t.get("note")]
    if study:
        groups = sorted({(t["size"], t["planes"], t["border"]) for t in study})
        for size, planes, border in groups:
            sel = [t for t in study if (t["size"], t["planes"], t["border"]) ==
                   (size, planes, border)]
            variants = sorted({t["variant"] for t in sel})
            for masks in (False, True):
                part = [t for t in sel if bool(t["mask"]) == masks]
                names = [v for v in variants if any(t["variant"] == v for t in part)]
                filters = []
                for t in part:
                    if t["filter"] not in filters:
                        filters.append(t["filter"])
                if not part:
                    continue
                lines += ["", "%s, %s, %s plane(s), %s: share of the roofline (%%), the best "
                          "in bold" % ("Mask variants" if masks else "Separable variants",
                                       size, planes, border), "",
                          "| filter | " + " | ".join(names) + " |",
                          "|---|" + "---|" * len(names)]
                for fl in filters:
                    cells = []
                    for v in names:
                        m = [t for t in part if t["filter"] == fl and t["variant"] == v]
                        cells.append(m[0]["share"] if m else "")
                    best = max((float(c) for c in cells if c), default=None)
                    lines.append("| %s | %s |" % (fl, " | ".join(
                        "**%s**" % c if c and best is not None and float(c) == best else c
                        for c in cells)))
            lines += ["", "Best variant per band (geometric mean of the share over the band's "
                      "equal-length cases and masks):", ""]
            for lo, hi in BANDS + [("mask", "mask")]:
                scores = {}
                for v in variants:
                    shares = []
                    for t in sel:
                        if t["variant"] != v:
                            continue
                        if lo == "mask":
                            ok = bool(t["mask"]) and int(t["mask"].split("x")[0]) >= 7
                        else:
                            ok = (not t["mask"] and t["taps_x"] == t["taps_y"]
                                  and lo <= int(t["taps_x"]) <= hi)
                        if ok:
                            shares.append(t["share_exact"])
                    if shares:
                        scores[v] = (math.exp(sum(math.log(s) for s in shares) / len(shares)),
                                     len(shares))
                if scores:
                    best = max(scores, key=lambda v: scores[v][0])
                    band = "masks 7x7 .. 15x15" if lo == "mask" else "%d .. %d taps" % (lo, hi)
                    lines.append("- %s: %s, %.1f %% (%s)" % (
                        band, best, scores[best][0], ", ".join(
                            "%s %.1f %%" % (v, s[0]) for v, s in sorted(
                                scores.items(), key=lambda kv: -kv[1][0]))))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
