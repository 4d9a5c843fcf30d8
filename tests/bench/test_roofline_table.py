"""bench/roofline_table.py on records made here: the roofline arithmetic and CuPy's column."""
import csv
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIELDS = ["label", "size", "planes", "border", "taps_x", "taps_y", "mask", "variant", "kernel",
          "iterations", "kernel_ms_median", "kernel_ms_min", "copy_ms", "fma_per_pixel",
          "build_ms", "tile", "classes", "verified", "max_diff", "error"]


def write_csv(path, fields, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)


def record(label, taps, mask, kernel_ms, fma):
    return dict(label=label, size="1000x1000", planes="1", border="replicate",
                taps_x=str(taps), taps_y=str(taps), mask=mask, variant="v", kernel="k",
                iterations="5", kernel_ms_median=str(kernel_ms), kernel_ms_min=str(kernel_ms),
                copy_ms="0.1", fma_per_pixel=str(fma), build_ms="1", tile="32x32", classes="",
                verified="", max_diff="", error="")


def table(tmp_path):
    write_csv(tmp_path / "roofline.csv", FIELDS, [
        record("d:f3", 3, "", 0.2, 6),
        record("d:m3", 3, "3x3", 0.25, 9),
        record("d:f63", 63, "", 1.0, 126),
    ])
    # The peer's records: the same lengths as a separable filter and as a mask, at other times.
    write_csv(tmp_path / "cupy.csv",
              ["size", "planes", "taps_x", "taps_y", "mask", "cupy_ms_median", "cupy_ms_min"], [
                  dict(size="1000x1000", planes="1", taps_x="3", taps_y="3", mask="",
                       cupy_ms_median="0.6", cupy_ms_min="0.6"),
                  dict(size="1000x1000", planes="1", taps_x="0", taps_y="0", mask="3x3",
                       cupy_ms_median="0.5", cupy_ms_min="0.5"),
              ])
    # 2,000 GFLOPS: 1e12 multiply-adds a second.
    (tmp_path / "clpeak.txt").write_text("  Single-precision compute (GFLOPS)\n"
                                         "    float   : 1000.00\n    float4  : 2000.00\n")
    subprocess.run([sys.executable, str(ROOT / "bench" / "roofline_table.py"), str(tmp_path)],
                   check=True, stdout=subprocess.DEVNULL)
    with open(tmp_path / "table.csv") as f:
        return {r["label"]: r for r in csv.DictReader(f)}


def test_cupy_times_go_to_their_own_filter(tmp_path):
    t = table(tmp_path)
    assert t["d:f3"]["cupy_ms"] == "0.6000"   # correlate1d along each axis, not the mask's
    assert t["d:m3"]["cupy_ms"] == "0.5000"
    assert t["d:f3"]["cupy_ratio"] == "3.00"
    assert t["d:m3"]["cupy_ratio"] == "2.00"
    assert t["d:f63"]["cupy_ms"] == ""


def test_roofline_is_the_larger_of_copy_and_fma_floor(tmp_path):
    t = table(tmp_path)
    # 3 taps: 6 multiply-adds x 1e6 pixels / 1e12 a second = 0.006 ms < the copy's 0.1 ms.
    assert t["d:f3"]["floor"] == "0.0060"
    assert t["d:f3"]["roofline"] == "0.1000"
    assert t["d:f3"]["share"] == "50.0"
    # 63 taps: 126 multiply-adds a pixel: 0.126 ms, above the copy.
    assert t["d:f63"]["roofline"] == "0.1260"
    assert t["d:f63"]["share"] == "12.6"
