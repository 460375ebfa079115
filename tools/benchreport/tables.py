# SPDX-License-Identifier: GPL-2.0
"""The generated blocks of docs/benchmarks.md: each a list of Markdown
lines, tables and short fixed phrases. What a table's load is and why its
figures are what they are is hand-written around the blocks."""
import json
import os

from .stats import HBM_ROWS, HTB_ROW, fmt_ratio, hbm_key, ratio

COVER_KINDS = ["noqueue", "pfifo_fast", "bfifo", "plug", "bpf_floor", "bpf_fifo", "fq", "bpf_fq",
               "fq_codel", "bpf_fq_codel"]
COST_KINDS = ["noqueue", "pfifo_fast", "pfifo", "bfifo", "bpf_fifo", "bpf_floor", "fq", "bpf_fq",
              "fq_codel", "bpf_fq_codel"]
FLENT_KINDS = ["pfifo_fast", "bpf_fifo", "fq", "bpf_fq"]
# The memory section (tools/bench memory): each kind's load, then the
# kernel's qdisc and the BPF kind that stands for it, idle and with flows.
MEMORY_KINDS = ["bpf_fifo", "bpf_fq", "bpf_fq_codel", "bpf_hbm"]
MEMORY_IDLE_PAIRS = [("pfifo_fast", "bpf_fifo"), ("fq", "bpf_fq"), ("fq_codel", "bpf_fq_codel")]
# The rank section (tools/bench rank): the rank queue beside a bpf_rb_tree
# of a node a packet, by queue depth; each rank kind beside bpf_fifo.
RANK_QUEUES = [("rank", "rank queue"), ("rbtree", "bpf_rb_tree")]
# Two reads of the same state differ by up to this (kernel_mem_kb, lib.sh).
MEMORY_SPREAD_KB = 64
# The ratios the patches are judged by (issue 29): each BPF qdisc against the
# C qdisc it stands for, and the floor against bfifo, which no patch touches.
KERNEL_RATIOS = [("bpf_fifo", "pfifo_fast"), ("bpf_fq_codel", "fq_codel"),
                 ("bpf_fq", "fq"), ("bpf_floor", "bfifo")]
KERNEL_METRICS = [("cost", "pps", "64-byte pkt/s"), ("cover", "tcp1", "TCP 1 flow"),
                  ("cover", "tcp8", "TCP 8 flows"), ("cover", "rtt_p50", "RTT p50"),
                  ("cover", "rtt_p99", "RTT p99")]
KERNELS = ("stock", "patched")
HBM_2019_JSON = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hbm-2019.json")


def md_table(head, rows):
    return (["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] +
            ["| " + " | ".join(str(x) for x in r) + " |" for r in rows] + [""])


def ratio_rows(fig, t, pairs, metrics):
    """a / b, the median of the per-round ratios, for each metric."""
    return [[f"{a} / {b}"] + [fmt_ratio(fig.paired(t, a, b, m)) for m in metrics] for a, b in pairs]


def case_notes(fig, t, skip=()):
    """What kept a case of table t from running (tools/bench's notes)."""
    notes = {c: s for c, s in fig.notes.get(t, {}).items() if c not in skip}
    return [f"- {c}: {s}" for c, s in sorted(notes.items())] + [""] if notes else []


def not_measured(meta, quick):
    return ("Not measured in this run" +
            (f" ({quick})." if meta.get("mode") == "quick" else ": see the command above."))


def header(meta):
    cpus = f"{meta.get('cpus', '?')} vCPU" + ("" if meta.get("cpus") == "1" else "s")
    clock = ("virtual (QEMU icount; docs/testing.md)" if meta.get("clock") == "virtual"
             else "wall (QEMU TCG on the host's time)")
    lines = [f"- command: `{meta.get('command', '?')}`",
             f"- mode: {meta.get('mode', '?')} ({meta.get('rounds', '?')} rounds of "
             f"{meta.get('secs', '?')} s per figure, qdiscs interleaved within each round, "
             "their order rotating)",
             f"- date: {meta.get('date', '?')}; guest kernel {meta.get('kernel', '?')}, {cpus}",
             f"- clock: {clock}; {meta.get('boots', 1)} boot(s)",
             "- every figure: median (min–max) over the rounds. Raw figures: "
             "[benchmarks.json](benchmarks.json).", ""]
    if meta.get("cut"):
        lines += [f"**Incomplete run:** {meta['cut']}.", ""]
    if meta.get("mode") == "quick":
        lines += [f"Quick mode: {meta.get('rounds')} rounds of {meta.get('secs')} s "
                  "([modes](#modes)).", ""]
    return lines


def cover(fig):
    rows = [[k] + [fig.cell("cover", k, m) for m in ("tcp1", "tcp8")] +
            [fig.cell("cover", k, m, 1) for m in ("rtt_avg", "rtt_p50", "rtt_p99")]
            for k in COVER_KINDS]
    metrics = ("tcp1", "tcp8", "rtt_avg", "rtt_p50", "rtt_p99")
    pairs = (("bpf_fifo", "pfifo_fast"), ("bpf_fq", "fq"), ("bpf_fq_codel", "fq_codel"),
             ("bpf_floor", "bfifo"), ("bpf_floor", "plug"), ("pfifo_fast", "noqueue"))
    return (md_table(["qdisc", "TCP 1 flow", "TCP 8 flows", "RTT avg", "RTT p50", "RTT p99"], rows)
            + case_notes(fig, "cover")
            + md_table(["median of per-round ratios", "TCP 1 flow", "TCP 8 flows", "RTT avg",
                        "RTT p50", "RTT p99"], ratio_rows(fig, "cover", pairs, metrics))
            + ["![throughput](bench-throughput.png)", ""])


def cost(fig):
    rows = []
    for k in COST_KINDS:
        per_pkt, share = fig.bpf_per_packet(k)
        rows.append([k, fig.cell("cost", k, "pps"),
                     fmt_ratio(fig.paired("cost", k, "pfifo_fast", "pps")),
                     fig.cell("cost", k, "enq_ns"), fig.cell("cost", k, "deq_ns"),
                     "–" if per_pkt is None else f"{per_pkt / 1000:.1f}",
                     "–" if share is None else f"{share:.1%}"])
    lines = md_table(["qdisc", "pkt/s", "vs pfifo_fast", "enqueue ns", "dequeue ns",
                      "BPF µs per packet", "share of a packet's time"], rows)
    if not fig.get("cost", "bpf_fifo", "deq_per_enq"):
        lines += ["Dequeues per enqueue not counted in this run: 2 taken, as counted when "
                  "bpf_fifo was tuned.", ""]
    return lines + case_notes(fig, "cost") + ["![packets per second](bench-pps.png)", ""]


def fifo(fig):
    if "fifo" not in fig.s:
        return []
    n = max(g["n"] for c in fig.s["fifo"].values() for g in c.values())
    rows = []
    for m, name in (("pps", "64-byte UDP pkt/s"), ("tcp1", "TCP 1 flow Mbit/s")):
        q = fig.ratio_quartiles("fifo", "bpf_fifo", "pfifo_fast", m)
        rows.append([name, fig.cell("fifo", "pfifo_fast", m), fig.cell("fifo", "bpf_fifo", m),
                     "–" if not q else f"{q[1]:.2f}× ({q[0]:.2f}–{q[2]:.2f})"])
    return ([f"### bpf_fifo against pfifo_fast alone ({n} rounds)", "",
             "Alternate rounds of the two alone; the ratio's spread: the middle half of the "
             "per-round ratios ([why](#fifo-ab)).", ""] +
            md_table(["", "pfifo_fast", "bpf_fifo", "bpf_fifo / pfifo_fast"], rows))


def kib(fig, c):
    g = fig.get("scale", c, "flow_bytes")
    return "–" if not g else f"{g['median'] / 1024:.0f}"


def scale(fig):
    ns = fig.flow_counts()
    rows = []
    for n in ns:
        f, b = f"fq:{n}", f"bpf_fq:{n}"
        rows.append([n, fig.cell("scale", f, "pps"), fig.cell("scale", b, "pps"),
                     fmt_ratio(fig.paired("scale", b, f, "pps")),
                     fig.cell("scale", b, "enq_ns"), fig.cell("scale", b, "deq_ns"),
                     fig.cell("scale", f, "flows"), fig.cell("scale", b, "flows"),
                     kib(fig, f), kib(fig, b)])
    lines = md_table(["flows", "fq pkt/s", "bpf_fq pkt/s", "bpf_fq / fq", "bpf_fq enq ns",
                      "bpf_fq deq ns", "fq flows", "bpf_fq flows", "fq KiB", "bpf_fq KiB"], rows)
    tb = fig.med("scale", "bpf_fq", "flow_table_bytes")
    if tb:  # runs from before flows were in arena pages recorded it
        flags = fig.note("scale", "table") or "--max-instances 4 --ring-slots 131072"
        lines += [f"In this run bpf_fq's flow table was still preallocated at load: "
                  f"{tb / 1048576:.1f} MiB (`{flags}`), whatever the number of flows; "
                  "flows are now in arena pages allocated with use.", ""]
    return lines + (["![scale](bench-scale.png)", ""] if ns else [])


def load_hbm_2019(path=HBM_2019_JSON):
    with open(path) as f:
        return json.load(f)["rows"]


def hbm_2019_row(key, old, htb):
    row, limit, flows = hbm_key(key)
    return ([f"{row} (2019)", limit, flows] +
            [f"{x:.2f}" if i in (1, 2) else f"{x:g}" for i, x in enumerate(old)] +
            [fmt_ratio(old[0] / htb[0]), fmt_ratio(old[5] / htb[5])])


def hbm(fig, meta):
    lines = [fig.note("hbm", "all"), ""] if fig.note("hbm", "all") else []
    if not fig.s.get("hbm"):
        return lines + [not_measured(meta, "full mode only: about 6 minutes of VM time per "
                                           "rate and flow count"), ""]
    delay = fig.note("hbm", "delay_ms")
    lines += [f"netem delay: {delay} ms on the server's egress (tools/hbm-test -d)." if delay
              else "netem delay: none (veth's RTT, ~0.3 ms).", ""]
    ref, rows = load_hbm_2019(), []
    for key in fig.hbm_cases():
        v = lambda m, d=0: fig.cell("hbm", key, m, d)
        rows.append(list(hbm_key(key)) +
                    [v("agg"), v("drop_pct", 2), v("rtt", 2), v("rpc_rate", 1), v("rpc_p90"),
                     v("rpc_p99"), v("bulk_rate", 1), v("bulk_p90"), v("bulk_p99"),
                     fmt_ratio(fig.htb_ratio(key, "agg")), fmt_ratio(fig.htb_ratio(key, "rpc_p99"))])
        _, limit, flows = hbm_key(key)
        if key in ref:
            rows.append(hbm_2019_row(key, ref[key], ref[f"{HTB_ROW}:{limit}:{flows}"]))
    lines += md_table(["", "limit", "flows", "aggregate Mbit/s", "drop %", "RTT ms",
                       "10K rate", "10K P90 µs", "10K P99 µs", "1MB rate", "1MB P90 µs",
                       "1MB P99 µs", "rate / htb", "10K P99 / htb"], rows)
    lines += [f"- {row}: {fig.note('hbm', row)}" for row in HBM_ROWS if fig.note("hbm", row)]
    return lines + ["", "![RPC P99](bench-hbm.png)", ""]


def flent(fig, meta, pngs):
    if "flent" not in fig.s:
        return [fig.note("flent", "all") or not_measured(
            meta, "full mode only: 9 minutes of VM time; `tools/bench quick flent` runs one "
                  "round of 5 s"), ""]
    rows = [[k, fig.cell("flent", k, "tput"), fig.cell("flent", k, "ping_idle", 3),
             fig.cell("flent", k, "ping_p50", 3), fig.cell("flent", k, "ping_p99", 3)]
            for k in FLENT_KINDS if k in fig.s["flent"]]
    pairs = (("bpf_fifo", "pfifo_fast"), ("bpf_fq", "fq"), ("fq", "pfifo_fast"))
    return ([f"Runs: {fig.note('flent', 'params') or '?'}.", ""] +
            md_table(["qdisc", "upload Mbit/s", "ping idle ms", "ping p50 ms, loaded",
                      "ping p99 ms, loaded"], rows) +
            md_table(["median of per-round ratios", "upload", "ping p50", "ping p99"],
                     ratio_rows(fig, "flent", pairs, ("tput", "ping_p50", "ping_p99"))) +
            [f"![{alt}](flent/{png})" for png, alt in pngs] + [""])


def kernel_ratio_row(kernels, a, b):
    """a / b of each metric on each kernel: boot 1 / boot 2 / ..."""
    return [f"{a} / {b}"] + [" / ".join(fmt_ratio(f.paired(t, a, b, m)) for f in kernels[k])
                             for t, m, _ in KERNEL_METRICS for k in KERNELS]


def kernel_cost_row(kernels, k):
    row = [k]
    for kern in KERNELS:
        f = kernels[kern][0]
        bypassed = not f.get("cost", k, "deq_per_enq")
        row += [f.cell("cost", k, "pps"), "not called" if bypassed else f.cell("cost", k, "enq_ns"),
                f.cell("cost", k, "deq_ns"), f.cell("cost", k, "deq_per_enq", 2)]
    return row


def kernels_block(kernels, command):
    """Section 6: kernels is {"stock"|"patched": [Figures of each boot]}."""
    if not kernels:
        return ["Not measured: `tools/bench kernels` writes bench-kernels.json.", ""]
    head = ["ratio"] + [f"{name}, {k}" for _, _, name in KERNEL_METRICS for k in KERNELS]
    lines = [f"`{command}` ({kernels['stock'][0].meta.get('date', '?')}).", ""]
    lines += md_table(head, [kernel_ratio_row(kernels, a, b) for a, b in KERNEL_RATIOS])
    lines += md_table(["boot 1, section 2's load"] +
                      [f"{h}, {k}" for k in KERNELS
                       for h in ("pkt/s", "enqueue ns", "dequeue ns", "dequeues per enqueue")],
                      [kernel_cost_row(kernels, k) for k, _ in KERNEL_RATIOS])
    for k, figs in kernels.items():
        for i, f in enumerate(figs):
            for t in ("cover", "cost"):
                lines += [f"- {k} boot {i + 1}, {t} {c}: {note}"
                          for c, note in sorted(f.notes.get(t, {}).items())]
    return lines + [""]


def targets(rows):
    return md_table(["what", "target", "measured", "state", "why / what it would take"],
                    [[what, goal, "–" if value is None else value, state, why]
                     for what, goal, value, state, why in rows])


def reproducibility_row(what, x, rounds, others):
    """A headline ratio of boot 1, each other boot's and its difference."""
    row, worst = [what, f"{x:.3f}×"], 0.0
    for o in others:
        y = o.get(what, (None, []))[0]
        if y is None:
            row.append("–")
            continue
        d = (y - x) / x
        worst = max(worst, abs(d))
        row += [f"{y:.3f}×", f"{d:+.1%}"]
    spreads = [r for r in [rounds] + [o.get(what, (0, []))[1] for o in others] if r]
    spread = "; ".join(f"boot {i + 1} {min(r):.3f}–{max(r):.3f}" for i, r in enumerate(spreads))
    return row + ["yes" if worst <= 0.01 else "no", "" if worst <= 0.01 else f"rounds spread {spread}"]


def reproducibility(ratios, others):
    """ratios: boot 1's headline ratios; others: each other boot's."""
    if not others:
        return ["One boot: nothing to compare.", ""]
    head = ["ratio", "boot 1"]
    for i in range(len(others)):
        head += [f"boot {i + 2}", "difference"]
    rows = [reproducibility_row(what, x, rounds, others) for what, (x, rounds) in ratios.items()]
    return ([f"{len(others) + 1} boots; the tables above are boot 1's.", ""] +
            md_table(head + ["within 1%", "why not"], rows))


def printed_ratios(ratios, others):
    """The lines tools/bench prints: each headline ratio from every boot."""
    return [" ".join(str(c) for c in reproducibility_row(what, x, rounds, others)[:-1])
            for what, (x, rounds) in ratios.items()]


# Section 7: the pod bandwidth plugins (tools/cni-measure's rows and pods).
CNI_PLUGINS = [("ref", "bandwidth (reference)"), ("ours", "bpfqdisc-bandwidth")]
CNI_BURSTS = ["4294967295", "200000"]
CNI_DIRS = ["egress", "ingress"]
CNI_ROW_METRICS = [("first", "first second Mbit/s", 1), ("steady", "steady Mbit/s", 2),
                   ("retrans", "retransmits", 0), ("ping_med", "ping median ms", 3),
                   ("ping_p90", "ping p90 ms", 3)]
CNI_POD_METRICS = [("add_ms", "ADD ms per pod"), ("del_ms", "DEL ms per pod")]


def cni_rows(fig):
    """(burst, dir) of every row both plugins ran."""
    return [(b, d) for b in CNI_BURSTS for d in CNI_DIRS
            if all(f"{p}:{b}:{d}" in fig.s.get("cni", {}) for p, _ in CNI_PLUGINS)]


def mean_cell(fig, t, c, m):
    """The mean of a figure's values, then median (min–max)."""
    g = fig.get(t, c, m)
    if not g:
        return "–"
    return f"{sum(g['values']) / g['n']:.1f}; {fig.cell(t, c, m, 1)}"


def cni(fig, meta, verdicts):
    if "cni" not in fig.s and "cni_pods" not in fig.s:
        return [not_measured(meta, "`tools/bench quick --merge cni` runs it"), ""] + case_notes(fig, "cni")
    lines = [f"Runs: {fig.note('cni', 'params') or '?'}.", ""]
    rows = [[name, b, d] + [fig.cell("cni", f"{p}:{b}:{d}", m, digits) for m, _, digits in CNI_ROW_METRICS] +
            [fig.cell("cni", f"{p}:{b}:{d}", "police")]
            for p, name in CNI_PLUGINS for b, d in cni_rows(fig)]
    lines += md_table(["plugin", "burst (bits)", "direction"] + [h for _, h, _ in CNI_ROW_METRICS] +
                      ["police drops"], rows)
    pods = fig.s.get("cni_pods", {})
    n = max((g["n"] for c in pods.values() for g in c.values()), default=0)
    if pods:
        lines += [f"{n} pods, one after the other: mean; median (min–max) per pod, guest ms.", ""]
        lines += md_table(["plugin"] + [h for _, h in CNI_POD_METRICS] +
                          ["kernel memory, all pods limited (kB)", "BPF maps made (bytes memlock)",
                           "maps"],
                          [[name] + [mean_cell(fig, "cni_pods", p, m) for m, _ in CNI_POD_METRICS] +
                           [fig.cell("cni_pods", p, m) for m in ("kmem_kb", "map_bytes", "maps")]
                           for p, name in CNI_PLUGINS if p in pods])
    lines += md_table(["bpfqdisc-bandwidth against the reference", "ours", "reference",
                       "ours / reference", "better", "beats it"], verdicts.cni_rows)
    return (lines + case_notes(fig, "cni", ("params",)) +
            ["![ADD and DEL per pod](bench-cni-pods.png)", "", "![ping under load](bench-cni-ping.png)", ""])


def memory_counts(fig, kind):
    """The instance or flow counts of the memory table's rows of kind, ascending."""
    return sorted({int(c.split(":")[1]) for c in fig.s.get("memory", {}) if c.startswith(kind + ":")})


def memory_ratio(fig, b, c):
    """The BPF kind's kB over the kernel qdisc's; none where the kernel's is
    within the probe's spread (MEMORY_SPREAD_KB), which a ratio would only magnify."""
    kb_b, kb_c = fig.med("memory", b, "kmem_kb"), fig.med("memory", c, "kmem_kb")
    if kb_c is None or kb_c <= MEMORY_SPREAD_KB:
        return "–"
    return fmt_ratio(ratio(kb_b, kb_c))


def memory_pair(fig, row, c, b, m):
    """A row of the memory table: the kernel's case c beside the BPF kind's b, counted by m."""
    cell = lambda x, metric: fig.cell("memory", x, metric)
    return [row, c.split(":")[-1], cell(c, m), cell(c, "kmem_kb"), b.split(":")[-1], cell(b, m),
            cell(b, "kmem_kb"), memory_ratio(fig, b, c)]


def memory_rows(fig):
    """[row, kernel's qdisc, count, kB, BPF kind, count, kB, BPF / kernel] of the idle and flows rows."""
    has = lambda *cs: any(fig.get("memory", c, "kmem_kb") for c in cs)
    rows = [memory_pair(fig, f"{n} idle", f"idle:{n}:{c}", f"idle:{n}:{b}", "children")
             for n in memory_counts(fig, "idle") for c, b in MEMORY_IDLE_PAIRS
             if has(f"idle:{n}:{c}", f"idle:{n}:{b}")]
    rows += [memory_pair(fig, f"{n} destinations", f"flows:{n}:fq", f"flows:{n}:bpf_fq", "flows")
             for n in memory_counts(fig, "flows")]
    return rows


def memory_loads(fig):
    """Each kind's load: the kernel's kB, and what bpfqdisc list says its maps and an instance hold."""
    rows = [[k] + [fig.cell("memory", f"load:{k}", m) for m in ("kmem_kb", "maps_kb", "instance_kb")]
            for k in MEMORY_KINDS if fig.get("memory", f"load:{k}", "kmem_kb")]
    if not rows:
        return []
    return md_table(["`bpfqdisc load`, defaults", "kernel kB", "its maps kB (`bpfqdisc list`)",
                     "an instance's kB (`bpfqdisc list`)"], rows)


def memory(fig, meta):
    if "memory" not in fig.s:
        return [not_measured(meta, "`tools/bench quick --merge memory` runs it"), ""] + case_notes(fig, "memory")
    return memory_loads(fig) + (md_table(["row", "kernel's qdisc", "instances or flows", "kernel kB", "BPF kind",
                      "instances or flows", "BPF kB", "BPF / kernel"], memory_rows(fig)) +
            [f"BPF / kernel: – where the kernel's figure is within {MEMORY_SPREAD_KB} kB, "
             "the spread of two reads of the same state.", ""] +
            case_notes(fig, "memory") + ["![kernel memory](bench-memory.png)", ""])


def rank_depths(fig):
    """The queue depths of the rank section's cost rows, ascending."""
    return sorted({int(c.split(":")[1]) for c in fig.s.get("rank", {}) if c.startswith("cost:")})


def rank_kinds(fig):
    """The kinds of its rate rows, bpf_fifo first."""
    kinds = {c.split(":")[1] for c in fig.s.get("rank", {}) if c.startswith("kind:")}
    return sorted(kinds, key=lambda k: (k != "bpf_fifo", k))


def rank_op_ns(fig, n, q):
    """A push and a pop of queue q with n queued, ns; None if either is missing."""
    enq, deq = (fig.med("rank", f"cost:{n}:{q}", m) for m in ("enq_ns", "deq_ns"))
    return None if enq is None or deq is None else enq + deq


def rank_vs_fifo(fig, k, m):
    r = ratio(fig.med("rank", f"kind:{k}", m), fig.med("rank", "kind:bpf_fifo", m))
    return "–" if r is None else f"{r:.3f}×"


def rank(fig, meta):
    if "rank" not in fig.s:
        return [not_measured(meta, "`tools/bench quick --merge rank` runs it"), ""] + case_notes(fig, "rank")
    cell = lambda c, m: fig.cell("rank", c, m)
    costs = [[n] + [cell(f"cost:{n}:{q}", m) for q, _ in RANK_QUEUES for m in ("enq_ns", "deq_ns")] +
             [fmt_ratio(ratio(rank_op_ns(fig, n, "rbtree"), rank_op_ns(fig, n, "rank")))]
             for n in rank_depths(fig)]
    rates = [[k, cell(f"kind:{k}", "pps"), rank_vs_fifo(fig, k, "pps"), cell(f"kind:{k}", "tcp1"),
              rank_vs_fifo(fig, k, "tcp1")] for k in rank_kinds(fig)]
    head = [f"{name} {op} ns" for _, name in RANK_QUEUES for op in ("push", "pop")]
    return (md_table(["packets queued"] + head + ["bpf_rb_tree / rank queue, push and pop"], costs) +
            md_table(["kind", "64-byte pkt/s", "/ bpf_fifo", "TCP 1 flow, Mbit/s", "/ bpf_fifo"], rates) +
            case_notes(fig, "rank") + ["![rank queue cost](bench-rank.png)", ""])
