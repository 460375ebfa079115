# SPDX-License-Identifier: GPL-2.0
"""The report's plots: OUTDIR/bench-*.png by gnuplot, and flent's own plots
of OUTDIR/flent/*.flent.gz."""
import glob
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

from .stats import HBM_ROWS
from .tables import (CNI_PLUGINS, COVER_KINDS, COST_KINDS, FLENT_KINDS, MEMORY_IDLE_PAIRS,
                     RANK_QUEUES, cni_rows, memory_counts, rank_depths)


def warn(msg):
    print(f"bench-report: {msg}", file=sys.stderr)


def write_dat(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(" ".join(str(x) for x in r) + "\n")
    return path


def fig_value(fig, t, c, m, k="median"):
    return (fig.get(t, c, m) or {}).get(k, 0)


TPUT_PPS = """
set terminal pngcairo size 800,450 noenhanced
set style data histograms
set style histogram errorbars gap 2 lw 1
set style fill solid 0.6 border -1
set grid ytics
set yrange [0:*]
set output '{outdir}/bench-throughput.png'
set title 'TCP throughput, median and min-max of the rounds'
set ylabel 'Mbit/s'
plot '{tput}' using 2:3:4:xtic(1) title '1 flow', '' using 5:6:7 title '8 flows'
set output '{outdir}/bench-pps.png'
set title '64-byte UDP, packets per second (one sender)'
set ylabel 'packets/s'
plot '{pps}' using 2:3:4:xtic(1) title 'pkt/s'
"""
SCALE = """
set output '{outdir}/bench-scale.png'
set style data linespoints
set logscale x
set xrange [0.5:*]
set title 'fq and bpf_fq with many flows (64-byte UDP)'
set xlabel 'flows'
set ylabel 'packets/s'
plot '{scale}' using 1:2 title 'fq', '' using 1:3 title 'bpf_fq'
"""
HBM = """
set output '{outdir}/bench-hbm.png'
set style data histograms
set style histogram clustered gap 1
unset logscale x
set xrange [*:*]
set xlabel 'limit / flows'
set title '10 KB RPC P99 latency next to 1 MB flows'
set ylabel 'ms'
plot {cols}
"""
CNI_PODS = """
set output '{outdir}/bench-cni-pods.png'
set style data histograms
set style histogram errorbars gap 2 lw 1
unset logscale x
set xrange [*:*]
set logscale y
set yrange [*:*]
set xlabel ''
set title 'CNI ADD and DEL per pod, median and min-max (guest clock)'
set ylabel 'ms (log scale)'
plot '{pods}' using 2:3:4:xtic(1) title 'ADD', '' using 5:6:7 title 'DEL'
"""
CNI_PING = """
set output '{outdir}/bench-cni-ping.png'
set style data histograms
set style histogram clustered gap 1
set title 'Ping from the pod under its own 20 Mbit/s flow, median'
set ylabel 'ms (log scale)'
set xlabel 'burst (bits), direction'
plot '{ping}' using 2:xtic(1) title 'bandwidth (reference)', '' using 3 title 'bpfqdisc-bandwidth'
unset logscale y
"""

MEMORY = """
set output '{outdir}/bench-memory.png'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.6 border -1
unset logscale x
set xrange [*:*]
set logscale y
set yrange [100:*]
set xtics rotate by -30
set rmargin 10
set xlabel ''
set title 'Kernel memory: the kernel qdisc and the BPF kind (its load included)'
set ylabel 'kB (log scale)'
plot '{mem}' using 2:xtic(1) title 'kernel qdisc', '' using 3 title 'BPF kind'
unset logscale y
set xtics norotate
set rmargin -1
"""

RANK = """
set output '{outdir}/bench-rank.png'
set style data linespoints
set logscale x
set logscale y
set xrange [0.5:*]
set yrange [*:*]
set xtics norotate
set xlabel 'packets queued'
set title 'A push and a pop against the queue depth (ns, virtual clock)'
set ylabel 'ns (log scale)'
plot {cols}
unset logscale x
unset logscale y
"""


def rank_script(fig, tmp, outdir):
    """Push and pop of each queue against the depth."""
    g = lambda n, q, m: fig_value(fig, "rank", f"cost:{n}:{q}", m)
    rows = [[n] + [g(n, q, m) for q, _ in RANK_QUEUES for m in ("enq_ns", "deq_ns")]
            for n in rank_depths(fig)]
    if not rows:
        return ""
    dat = write_dat(os.path.join(tmp, "rank"), rows)
    cols = ", ".join(f"'{dat}' using 1:{2 + 2 * i + j} title '{name} {op}'"
                     for i, (_, name) in enumerate(RANK_QUEUES) for j, op in enumerate(("push", "pop")))
    return RANK.format(outdir=outdir, cols=cols)


def memory_script(fig, tmp, outdir):
    """Each idle and flows row of the memory table: the kernel's kB beside the BPF kind's."""
    g = lambda c: fig_value(fig, "memory", c, "kmem_kb")
    rows = [[f"{n}:{c}", g(f"idle:{n}:{c}"), g(f"idle:{n}:{b}")]
            for n in memory_counts(fig, "idle") for c, b in MEMORY_IDLE_PAIRS]
    rows += [[f"{n}_flows:fq", g(f"flows:{n}:fq"), g(f"flows:{n}:bpf_fq")]
             for n in memory_counts(fig, "flows")]
    if not rows:
        return ""
    return MEMORY.format(outdir=outdir, mem=write_dat(os.path.join(tmp, "memory"), rows))


def cni_script(fig, tmp, outdir):
    g = lambda *a: fig_value(fig, *a)
    script = ""
    pods = [p for p, _ in CNI_PLUGINS if p in fig.s.get("cni_pods", {})]
    if pods:
        dat = write_dat(os.path.join(tmp, "cni-pods"),
                        [[name.split()[0]] + [g("cni_pods", p, m, s) for m in ("add_ms", "del_ms")
                                              for s in ("median", "min", "max")]
                         for p, name in CNI_PLUGINS if p in pods])
        script += CNI_PODS.format(outdir=outdir, pods=dat)
    rows = cni_rows(fig)
    if rows:
        dat = write_dat(os.path.join(tmp, "cni-ping"),
                        [[f"{'2^32-1' if b == '4294967295' else b},{d}"] + [g("cni", f"{p}:{b}:{d}", "ping_med") for p, _ in CNI_PLUGINS]
                         for b, d in rows])
        script += CNI_PING.format(outdir=outdir, ping=dat)
    return script


def hbm_script(fig, tmp, outdir):
    hbm = fig.s.get("hbm", {})
    configs = sorted({tuple(map(int, k.split(":")[1:])) for k in hbm})
    rows = [r for r in HBM_ROWS if any(k.startswith(r + ":") for k in hbm)]
    if not configs or not rows:
        return ""
    p99 = write_dat(os.path.join(tmp, "hbm"),
                    [[f"{rate}Mbit/{flows}"] +
                     [fig_value(fig, "hbm", f"{r}:{rate}:{flows}", "rpc_p99") / 1000 for r in rows]
                     for rate, flows in configs])
    cols = ", ".join(f"'{p99}' using {i + 2}{':xtic(1)' if i == 0 else ''} title '{r}'"
                     for i, r in enumerate(rows))
    return HBM.format(outdir=outdir, cols=cols)


def gnuplot(fig, outdir):
    if not shutil.which("gnuplot"):
        warn("gnuplot not found, no plots (tools/setup installs gnuplot-nox)")
        return
    g = lambda *a: fig_value(fig, *a)
    with tempfile.TemporaryDirectory() as tmp:
        tput = write_dat(os.path.join(tmp, "tput"),
                         [[k] + [g("cover", k, m, s) for m in ("tcp1", "tcp8")
                                 for s in ("median", "min", "max")]
                          for k in COVER_KINDS if g("cover", k, "tcp1")])
        pps = write_dat(os.path.join(tmp, "pps"),
                        [[k, g("cost", k, "pps"), g("cost", k, "pps", "min"),
                          g("cost", k, "pps", "max")] for k in COST_KINDS])
        script = TPUT_PPS.format(outdir=outdir, tput=tput, pps=pps)
        ns = fig.flow_counts()
        if ns:
            scale = write_dat(os.path.join(tmp, "scale"),
                              [[n, g("scale", f"fq:{n}", "pps"), g("scale", f"bpf_fq:{n}", "pps")]
                               for n in ns])
            script += SCALE.format(outdir=outdir, scale=scale)
        script += hbm_script(fig, tmp, outdir)
        script += cni_script(fig, tmp, outdir)
        script += memory_script(fig, tmp, outdir)
        script += rank_script(fig, tmp, outdir)
        r = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
        if r.returncode:
            warn(f"gnuplot failed: {r.stderr.strip()}")


def flent_runs(d):
    """{(index in FLENT_KINDS, round): file} of tcp_nup-KIND-rROUND.flent.gz."""
    runs = {}
    for f in glob.glob(os.path.join(d, "tcp_nup-*-r*.flent.gz")):
        kind, r = os.path.basename(f)[len("tcp_nup-"):-len(".flent.gz")].rsplit("-r", 1)
        if kind in FLENT_KINDS and r.isdigit():
            runs[(FLENT_KINDS.index(kind), int(r))] = f
    return runs


def flent_plots(outdir):
    """flent's own plots of OUTDIR/flent/tcp_nup-KIND-rROUND.flent.gz, made
    by the host's flent (matplotlib): [(png, alt text)] of those made."""
    d = os.path.join(outdir, "flent")
    runs = flent_runs(d)
    if not runs:
        return []
    if not shutil.which("flent"):
        warn("flent not found, no flent plots (tools/setup installs it)")
        return []
    first = [(FLENT_KINDS[i], f) for (i, r), f in sorted(runs.items()) if r == 1]
    todo = [("ping_cdf.png", "ping CDF under load, round 1", ["-p", "ping_cdf"], [f for _, f in first]),
            ("box_totals.png", "upload and ping of every run",
             ["-p", "box_totals", "--figure-width", "14", "--figure-height", "6"],
             [runs[k] for k in sorted(runs)])]
    todo += [(f"totals-{k}.png", f"upload and ping over time, {k}", ["-p", "totals"], [f])
             for k, f in first]
    return [(png, alt) for png, alt, plot, files in todo if flent_plot(d, png, plot, files)]


def flent_plot(d, png, plot, files):
    # Plots that cut the ramps off (ping_cdf, box_totals) take the
    # delay from the command line, not from the data file.
    cmd = ["flent", "-d", str(flent_delay(files[0])), *plot,
           "-o", os.path.join(d, png)] + [a for f in files for a in ("-i", f)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, MPLBACKEND="Agg"))
    if r.returncode or not os.path.exists(os.path.join(d, png)):
        warn(f"{' '.join(cmd[:5])}... failed: {(r.stdout + r.stderr).strip()[-200:]}")
        return False
    return True


def flent_delay(path):
    """The seconds of ping alone before and after a tcp_nup run's load."""
    with gzip.open(path, "rt") as f:
        m = json.load(f)["metadata"]
    return (m["TOTAL_LENGTH"] - m["LENGTH"]) // 2
