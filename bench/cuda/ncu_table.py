#!/usr/bin/env python3
"""bench/cuda/ncu_table.py - the tables of a bench/cuda/probe.sh run, in markdown.

    python3 bench/cuda/ncu_table.py [--masks] OUTDIR

From OUTDIR: times.csv (the CUDA port, long_probe or mask_probe), opencl.csv (the OpenCL
kernel, from build/roofline, labels opencl:fN or opencl:mN), opencl-ptx/*-fN.ptxas.txt (the
OpenCL kernel's registers), ncu-N.csv and ncu-N-raw.csv (Nsight Compute's details and raw
pages of one launch of the port at N taps, or an N x N mask), ncu-status.txt (why a profile is
missing). Two tables: the times side by side, then the profile, a column per length (--masks:
per mask, N the side).

ncu's names differ between versions: every quantity is looked up by section and metric name
substrings in the details page, then by raw metric names in the raw page; what neither has is
printed as n/a (the raw CSVs are kept for anything this table leaves out).
"""
import csv
import glob
import os
import re
import sys

NA = "n/a"


def number(text):
    """A float from ncu's text ('1,234.5', '98.7'), or None."""
    if text is None:
        return None
    try:
        return float(str(text).replace(",", "").strip())
    except ValueError:
        return None


def rows_from(path):
    """The CSV rows of a file from its header line ("ID",...) on, ncu's chatter before it left out."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
    except OSError:
        return []
    for i, line in enumerate(lines):
        if line.startswith('"ID"') or line.startswith("ID,"):
            return list(csv.reader(lines[i:]))
    return []


class Profile:
    """One launch's details page (section, metric, unit, value) and raw page (name -> unit, value)."""

    def __init__(self, details_path, raw_path):
        self.details = []
        rows = rows_from(details_path)
        if rows:
            head = rows[0]
            idx = {name: head.index(name) for name in ("Section Name", "Metric Name", "Metric Unit",
                                                        "Metric Value") if name in head}
            if len(idx) == 4:
                for r in rows[1:]:
                    if len(r) == len(head):
                        self.details.append((r[idx["Section Name"]], r[idx["Metric Name"]],
                                             r[idx["Metric Unit"]], r[idx["Metric Value"]]))
        self.raw = {}
        rows = rows_from(raw_path)
        if len(rows) >= 3:  # names, units, the first (only) launch
            names, units, values = rows[0], rows[1], rows[2]
            for i, name in enumerate(names):
                if i < len(units) and i < len(values):
                    self.raw[name] = (units[i], values[i])

    def present(self):
        return bool(self.details or self.raw)

    def find(self, section, metric, raw=()):
        """(value text, unit) of the first details row whose section and metric contain these
        substrings (an exact metric name first), else of the first raw metric named in raw."""
        s, m = section.lower(), metric.lower()
        for exact in (True, False):
            for sec, name, unit, value in self.details:
                if s in sec.lower() and (name.lower() == m if exact else m in name.lower()):
                    return value, unit
        for name in raw:
            if name in self.raw:
                unit, value = self.raw[name]
                return value, unit
        return None

    def value(self, section, metric, raw=()):
        hit = self.find(section, metric, raw)
        return number(hit[0]) if hit else None

    def stalls(self):
        """[(reason, cycles per issued instruction)] from the raw page, largest first."""
        out = []
        pattern = re.compile(r"smsp__average_warps?_issue_stalled_(.+)_per_issue_active\.ratio$")
        for name, (_, value) in self.raw.items():
            m = pattern.match(name)
            v = number(value)
            if m and "not_issued" not in m.group(1) and v is not None:
                out.append((m.group(1), v))
        return sorted(out, key=lambda p: -p[1])


def ms_of(value, unit):
    scale = {"nsecond": 1e-6, "ns": 1e-6, "usecond": 1e-3, "us": 1e-3, "msecond": 1.0,
             "ms": 1.0, "second": 1e3, "s": 1e3}.get((unit or "").strip().lower())
    v = number(value)
    return v * scale if v is not None and scale is not None else None


def fmt(v, digits=1, suffix=""):
    return NA if v is None else f"{v:.{digits}f}{suffix}"


def read_times(out):
    """{(taps, mode): row} from times.csv."""
    times = {}
    rows = []
    try:
        with open(os.path.join(out, "times.csv"), encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except OSError:
        pass
    for r in rows:
        if r.get("taps") and r.get("mode"):
            times[(int(r["taps"]), r["mode"])] = r
    return times


def read_opencl(out):
    """{N: row} from opencl.csv (bench/roofline.c's records), N from the label opencl:fN
    (N taps) or opencl:mN (an N x N mask)."""
    found = {}
    try:
        with open(os.path.join(out, "opencl.csv"), encoding="utf-8") as f:
            for r in csv.DictReader(f):
                m = re.match(r"opencl:[fm](\d+)$", r.get("label") or "")
                if m and not r.get("error"):
                    found[int(m.group(1))] = r
    except (OSError, ValueError, KeyError):
        pass
    return found


def opencl_registers(out, taps):
    paths = glob.glob(os.path.join(out, "opencl-ptx", f"*-f{taps}.ptxas.txt"))
    try:
        with open(paths[0] if paths else "", encoding="utf-8", errors="replace") as f:
            m = re.search(r"Used (\d+) registers", f.read())
        return m.group(1) if m else NA
    except OSError:
        return NA


def table(head, rows):
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def times_table(out, lengths, unit):
    times, opencl = read_times(out), read_opencl(out)
    head = [unit, "OpenCL ms", "port ms (same geometry)", "port / OpenCL", "port ms (interior)",
            "copy ms (CUDA / OpenCL)", "registers (port / OpenCL)", "port shared bytes",
            "check (max diff)"]
    rows = []
    for n in lengths:
        edge, inner, ocl = times.get((n, "edges")), times.get((n, "interior")), opencl.get(n)
        ocl_ms = number(ocl["kernel_ms_median"]) if ocl else None
        edge_ms = number(edge["kernel_ms"]) if edge else None
        ratio = edge_ms / ocl_ms if edge_ms and ocl_ms else None
        any_row = inner or edge
        checks = [r for r in (inner, edge) if r]
        rows.append([
            n, fmt(ocl_ms, 4), fmt(edge_ms, 4), fmt(ratio, 2, "x"),
            fmt(number(inner["kernel_ms"]) if inner else None, 4),
            f"{fmt(number(any_row['copy_ms']) if any_row else None, 4)} / "
            f"{fmt(number(ocl['copy_ms']) if ocl else None, 4)}",
            f"{any_row['registers'] if any_row else NA} / {opencl_registers(out, n)}",
            any_row["shared_bytes"] if any_row else NA,
            ", ".join(f"{r['mode']} {'ok' if r['ok'] == 'true' else 'FAILED'} ({r['max_abs_diff']})"
                      for r in checks) or NA,
        ])
    return table(head, rows)


def occupancy_limit(p):
    """'25.0 % (registers: 1 block)' - theoretical occupancy and the smallest block limit."""
    theory = p.value("Occupancy", "Theoretical Occupancy",
                     ("sm__maximum_warps_per_active_cycle_pct",))
    limits = {}
    for label, metric, raw in (("registers", "Block Limit Registers",
                                "launch__occupancy_limit_registers"),
                               ("shared memory", "Block Limit Shared Mem",
                                "launch__occupancy_limit_shared_mem"),
                               ("warps", "Block Limit Warps", "launch__occupancy_limit_warps"),
                               ("blocks per SM", "Block Limit SM", "launch__occupancy_limit_blocks")):
        v = p.value("Occupancy", metric, (raw,))
        if v is not None:
            limits[label] = v
    if not limits:
        return fmt(theory, 1, " %")
    low = min(limits.values())
    names = ", ".join(k for k, v in limits.items() if v == low)
    return f"{fmt(theory, 1, ' %')} ({names}: {low:.0f} block{'s' if low != 1 else ''}/SM)"


def shared_per_block(p):
    parts = []
    for label, metric, raw in (("static", "Static Shared Memory Per Block",
                                "launch__shared_mem_per_block_static"),
                               ("dynamic", "Dynamic Shared Memory Per Block",
                                "launch__shared_mem_per_block_dynamic")):
        hit = p.find("Launch", metric, (raw,))
        if hit and number(hit[0]) is not None and (label == "static" or number(hit[0]) > 0):
            parts.append(f"{hit[0]} {hit[1]}".strip() + ("" if label == "static" else " dyn"))
    return " + ".join(parts) or NA


def profile_table(out, lengths, times, name):
    profiles = {n: Profile(os.path.join(out, f"ncu-{n}.csv"), os.path.join(out, f"ncu-{n}-raw.csv"))
                for n in lengths}
    shown = [n for n in lengths if profiles[n].present()]
    if not shown:
        return None
    quantities = []

    def add(label, fn):
        quantities.append([label] + [fn(profiles[n], n) for n in shown])

    def pct(section, metric, raw=()):
        return lambda p, n: fmt(p.value(section, metric, raw), 1, " %")

    def duration(p, n):
        hit = p.find("Speed Of Light", "Duration", ("gpu__time_duration.sum",))
        return fmt(ms_of(*hit) if hit else None, 4)

    def copy(p, n):
        r = times.get((n, "interior"))
        return fmt(number(r["copy_ms"]) if r else None, 4)

    def conflicts(p, n):
        ld = p.value("", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                     ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",))
        st = p.value("", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
                     ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",))
        wl = p.value("", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                     ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",))
        ws = p.value("", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
                     ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",))
        text = f"{fmt(ld, 0)} / {fmt(st, 0)}"
        if wl is not None and ws is not None:
            text += f" (of {wl:.0f} / {ws:.0f} wavefronts)"
        return text

    def stalls(p, n):
        s = p.stalls()
        if not s:
            return NA
        total = sum(v for _, v in s)  # = warp cycles per issued instruction, 'selected' included
        top = [(r, v) for r, v in s if r != "selected"][:3]
        return "; ".join(f"{r} {v:.1f} ({100 * v / total:.0f} %)" for r, v in top)

    add("kernel ms (ncu, one launch)", duration)
    add("copy ms (cudaMemcpy, median)", copy)
    add("issue slots busy", pct("Compute Workload", "Issue Slots Busy",
                                ("sm__inst_issued.avg.pct_of_peak_sustained_active",)))
    for label, metric in (("FMA pipe, cycles active", "sm__pipe_fma_cycles_active"),
                          ("FMA pipe, instructions", "sm__inst_executed_pipe_fma"),
                          ("LSU pipe, instructions", "sm__inst_executed_pipe_lsu")):
        # Raw metrics with no section of their own: found by the raw name alone.
        raw = metric + ".avg.pct_of_peak_sustained_active"
        add(label, pct("", raw, (raw,)))
    add("L1/TEX throughput (SOL)", pct("Speed Of Light", "L1/TEX Cache Throughput",
                                       ("l1tex__throughput.avg.pct_of_peak_sustained_active",)))
    add("SM throughput (SOL)", pct("Speed Of Light", "Compute (SM) Throughput",
                                   ("sm__throughput.avg.pct_of_peak_sustained_elapsed",)))
    add("achieved occupancy", pct("Occupancy", "Achieved Occupancy",
                                  ("sm__warps_active.avg.pct_of_peak_sustained_active",)))
    add("theoretical occupancy (limit)", lambda p, n: occupancy_limit(p))
    add("registers per thread", lambda p, n: fmt(p.value("Launch", "Registers Per Thread",
                                                         ("launch__registers_per_thread",)), 0))
    add("shared memory per block", lambda p, n: shared_per_block(p))
    add("waves per SM", lambda p, n: fmt(p.value("Launch", "Waves Per SM",
                                                 ("launch__waves_per_multiprocessor",)), 2))
    add("shared bank conflicts ld / st", conflicts)
    add("L1/TEX hit rate", pct("Memory Workload", "L1/TEX Hit Rate", ("l1tex__t_sector_hit_rate.pct",)))
    add("L2 hit rate", pct("Memory Workload", "L2 Hit Rate", ("lts__t_sector_hit_rate.pct",)))
    add("DRAM throughput", pct("Speed Of Light", "DRAM Throughput",
                               ("dram__throughput.avg.pct_of_peak_sustained_elapsed",
                                "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed")))
    add("warp cycles per issued instruction",
        lambda p, n: fmt(p.value("Warp State", "Warp Cycles Per Issued Instruction",
                                 ("smsp__average_warp_latency_per_inst_issued.ratio",)), 1))
    add("eligible warps per scheduler",
        lambda p, n: fmt(p.value("Scheduler", "Eligible Warps Per Scheduler",
                                 ("smsp__warps_eligible.avg.per_cycle_active",)), 2))
    add("no eligible warp", pct("Scheduler", "No Eligible", ("smsp__issue_inst0.avg.pct_of_peak_sustained_active",)))
    add("top 3 stalls, cycles per issue (share)", stalls)
    return table(["quantity"] + [name(n) for n in shown], quantities)


def main(argv):
    masks = argv[:1] == ["--masks"]
    argv = argv[1:] if masks else argv
    if len(argv) != 1:
        print("usage: python3 bench/cuda/ncu_table.py [--masks] OUTDIR", file=sys.stderr)
        return 2
    out = argv[0]
    unit = "mask" if masks else "taps"
    name = (lambda n: f"{n} x {n}") if masks else (lambda n: f"{n} taps")
    times = read_times(out)
    lengths = sorted({n for n, _ in times} | set(read_opencl(out)) |
                     {int(m.group(1)) for m in (re.search(r"ncu-(\d+)\.csv$", f)
                                                for f in glob.glob(os.path.join(out, "ncu-*.csv")))
                      if m})
    if not lengths:
        print(f"{out}: no times.csv, opencl.csv or ncu-N.csv to tabulate", file=sys.stderr)
        return 1
    print("### The CUDA port against the OpenCL kernel (median ms)\n")
    print("'same geometry': the port on the OpenCL run's image (edge tiles bordered); 'interior':")
    print("every tile on the unchecked path. OpenCL registers: its driver PTX through ptxas.\n")
    print(times_table(out, lengths, unit))
    status = ""
    try:
        with open(os.path.join(out, "ncu-status.txt"), encoding="utf-8") as f:
            status = f.read().strip()
    except OSError:
        pass
    print("\n### Nsight Compute, one launch of the port (every tile interior)\n")
    if "ERR_NVGPUCTRPERM" in status:
        print("ncu had no permission to read the GPU's counters (ERR_NVGPUCTRPERM): no profile; "
              "the times above and sass_mix.txt are all there is.")
        return 0
    profile = profile_table(out, lengths, times, name)
    if profile is None:
        print(f"no ncu profile in {out}" + (f" ({status})" if status else "") + ".")
        return 0
    print(profile)
    if status:
        print(f"\n(ncu: {status})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
