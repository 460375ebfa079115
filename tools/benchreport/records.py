# SPDX-License-Identifier: GPL-2.0
"""The records of a run: tools/bench's raw lines (one figure or note each),
and OUTDIR/benchmarks.json and OUTDIR/bench-kernels.json, which keep them."""
import json
import os
import statistics

KERNELS_JSON = "bench-kernels.json"
BENCH_JSON = "benchmarks.json"


class ReportError(Exception):
    """Bad input: the report stops with this one line, writing nothing more."""


def load_raw(path):
    recs = []
    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                recs.append(json.loads(line))
                if not valid(recs[-1]):
                    raise ReportError(f"{path}:{n}: not a figure or a note: {line.strip()[:80]}")
    except (OSError, ValueError) as e:
        raise ReportError(f"{path}: {e}")
    return recs


def valid(r):
    if not isinstance(r, dict) or not all(isinstance(r.get(k), str) for k in "tcm"):
        return False
    if r["m"] == "note":
        return isinstance(r.get("s"), str)
    return isinstance(r.get("v"), (int, float)) and isinstance(r.get("r"), int)


def is_figure(r):
    return r["m"] != "note"


def summarize(recs):
    """{table: {case: {metric: {median, min, max, n, values}}}} and notes."""
    vals, notes = {}, {}
    for r in recs:
        if not is_figure(r):
            notes.setdefault(r["t"], {})[r["c"]] = r["s"]
            continue
        vals.setdefault(r["t"], {}).setdefault(r["c"], {}).setdefault(r["m"], []).append(r["v"])
    summary = {}
    for t, cases in vals.items():
        for c, metrics in cases.items():
            for m, v in metrics.items():
                summary.setdefault(t, {}).setdefault(c, {})[m] = {
                    "median": statistics.median(v), "min": min(v), "max": max(v),
                    "n": len(v), "values": v}
    return summary, notes


def boots(recs):
    """The records of each VM boot, boot 1's first."""
    numbers = sorted({r.get("b", 1) for r in recs})
    return [[r for r in recs if r.get("b", 1) == b] for b in numbers]


def read_json(path, check):
    """OUTDIR's JSON file, with check(obj) raising on a missing part."""
    try:
        with open(path) as f:
            obj = json.load(f)
        check(obj)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ReportError(f"{path}: {e}")
    return obj


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


def merge(recs, outdir, command):
    """recs and the records of the tables recs lacks from OUTDIR/benchmarks.json,
    and the command that made them all; command None: the report again."""
    path = os.path.join(outdir, BENCH_JSON)
    old = read_json(path, lambda o: (o["records"], o["meta"]["command"]))
    tables = {r["t"] for r in recs} - {"meta"}
    kept = [r for r in old["records"] if valid(r) and r["t"] not in tables]
    if command is None:
        return kept, old["meta"]["command"]
    # The header's date and kernel stay the first run's: say this one's here.
    when = {r["c"]: r.get("s") for r in recs if r["t"] == "meta" and not is_figure(r)}
    command = (f"{old['meta']['command']}; then {command} ({when.get('date', '?')}, "
               f"{when.get('kernel', '?')}), whose tables ({', '.join(sorted(tables))}) "
               "replaced those of the run above")
    return kept + [r for r in recs if r["t"] != "meta"], command


def load_kernels(outdir):
    """OUTDIR/bench-kernels.json (tools/bench kernels), or None."""
    path = os.path.join(outdir, KERNELS_JSON)
    if not os.path.exists(path):
        return None
    return read_json(path, lambda k: (k["records"]["stock"], k["records"]["patched"], k["command"]))


def write_kernels(stock, patched, outdir, command):
    k = {"command": command, "records": {"stock": load_raw(stock), "patched": load_raw(patched)}}
    for name, path in (("stock", stock), ("patched", patched)):
        if not any(is_figure(r) for r in k["records"][name]):
            raise ReportError(f"{path}: no figures")
    write_json(os.path.join(outdir, KERNELS_JSON), k)
