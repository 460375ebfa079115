# SPDX-License-Identifier: GPL-2.0
"""A report: the records of every boot to OUTDIR/benchmarks.json, the plots,
and the generated blocks of OUTDIR/benchmarks.md."""
import os

from . import document, plots, records, tables
from .stats import Figures
from .verdicts import Verdicts, load_targets


def kernel_figures(kernels):
    """{"stock"|"patched": [Figures of each boot]} of tools/bench kernels' run."""
    if not kernels:
        return None
    return {k: [Figures.of(recs) for recs in records.boots(kernels["records"][k])]
            for k in tables.KERNELS}


def blocks(fig, meta, verdicts, others, kernels_command, pngs):
    return {"header": tables.header(meta), "cover": tables.cover(fig), "cost": tables.cost(fig),
            "fifo": tables.fifo(fig), "scale": tables.scale(fig), "hbm": tables.hbm(fig, meta),
            "flent": tables.flent(fig, meta, pngs),
            "cni": tables.cni(fig, meta, verdicts), "memory": tables.memory(fig, meta),
            "rank": tables.rank(fig, meta),
            "kernels": tables.kernels_block(verdicts.kernels, kernels_command),
            "targets": tables.targets(verdicts.rows),
            "reproducibility": tables.reproducibility(verdicts.ratios, others)}


def write(recs, outdir, command):
    """Every file of the report; the lines tools/bench prints, if any."""
    doc = os.path.join(outdir, "benchmarks.md")
    parts = document.read(doc)
    boots = records.boots(recs)
    fig = Figures.of(boots[0])
    meta = dict(fig.meta, command=command, boots=len(boots))
    targets = load_targets()
    others = [Verdicts(Figures.of(b)).judge(targets).ratios for b in boots[1:]]
    kernels = records.load_kernels(outdir)
    verdicts = Verdicts(fig, kernel_figures(kernels)).judge(targets)
    records.write_json(os.path.join(outdir, records.BENCH_JSON),
                       {"meta": meta, "notes": fig.notes, "summary": fig.s, "records": recs})
    plots.gnuplot(fig, outdir)
    pngs = plots.flent_plots(outdir) if "flent" in fig.s else []
    document.write(doc, parts, blocks(fig, meta, verdicts, others,
                                      kernels and kernels["command"], pngs))
    return tables.printed_ratios(verdicts.ratios, others) if others else []
