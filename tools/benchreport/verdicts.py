# SPDX-License-Identifier: GPL-2.0
"""The figures against the targets of targets.json: one row of the Targets
table per target, and the headline ratios that the boots are compared by.
A row's "why" is short phrases with the figures that bear on it and a link
to the hand-written explanation in docs/benchmarks.md."""
import json
import operator
import os

from .stats import HTB_ROW, hbm_key, htb_case, ratio
from .tables import CNI_POD_METRICS, CNI_ROW_METRICS, cni_rows

TARGETS_JSON = os.path.join(os.path.dirname(os.path.abspath(__file__)), "targets.json")
OPS = {">=": ("≥", operator.ge), "<=": ("≤", operator.le)}
# The steps from pfifo_fast down to bpf_fifo in section 2 (fifo_steps).
FIFO_STEPS = [("pfifo", "locked, bypasses"), ("bfifo", "locked, never bypasses"),
              ("bpf_floor", "the cheapest BPF FIFO"), ("bpf_fifo", "")]


def load_targets(path=TARGETS_JSON):
    with open(path) as f:
        return json.load(f)["targets"]


def link(anchor, text="why"):
    return f"[{text}](#{anchor})"


def phrases(*parts):
    return " ".join(p for p in parts if p)


def for_flow_count(t, n):
    """A target of each flow count, its {n} filled in."""
    return {k: v.replace("{n}", str(n)) if isinstance(v, str) else v for k, v in t.items()}


class Verdicts:
    def __init__(self, fig, kernels=None):
        self.fig = fig
        self.kernels = kernels  # {"stock": [Figures of each boot], "patched": [...]}
        self.rows = []  # (what, target, measured, state, why)
        self.ratios = {}  # headline ratio -> (median, per-round ratios)
        self.cni_rows = []  # section 7's comparison: what, ours, ref, ratio, better, beats

    def judge(self, targets):
        for t in targets:
            KINDS[t["kind"]](self, t)
        self.hbm_ratios()
        return self

    def add(self, what, goal, value, met, why):
        state = "not measured" if value is None else ("met" if met else "missed")
        self.rows.append((what, goal, value, state, why))

    # --- kinds --------------------------------------------------------

    def ratio_target(self, t):
        if t.get("each_flow_count"):
            for n in self.fig.flow_counts():
                self.one_ratio(for_flow_count(t, n))
        else:
            self.one_ratio(t)

    def one_ratio(self, t):
        """a / b against a bound; in the A/B table where that ran."""
        ab = t.get("ab_table") in self.fig.s
        table = t["ab_table"] if ab else t["table"]
        what = t["what"] + (" (A/B rounds)" if ab else "")
        a, b, m = t["a"], t["b"], t["metric"]
        symbol, op = OPS[t["op"]]
        ok = lambda x: op(x, t["bound"])
        x = self.fig.paired(table, a, b, m)
        if x is not None:
            self.ratios[what] = (x, self.fig.round_ratios(table, a, b, m) or [])
        met = x is not None and ok(x)
        why = ""
        q = self.fig.ratio_quartiles(table, a, b, m)
        if met and q and not (ok(q[0]) and ok(q[2])):
            why = phrases(f"Met by the median only: the middle half of the per-round ratios "
                          f"spans {q[0]:.2f}–{q[2]:.2f}, so the rounds do not settle it.",
                          self.figures(t), link(t["explain"]))
        elif x is not None and not met:
            why = phrases(self.figures(t), self.overlap(table, a, b, m),
                          self.patched_effect(table, a, b, m), link(t["explain"]))
        self.add(what, f"{symbol} {t['bound']:.2f} × {b.split(':')[0]}",
                 None if x is None else f"{x:.2f}×", met, why)

    def growth_target(self, t):
        """Logarithmic at most: from 1 flow to the most, no more than twice
        the growth from 1 to 1000 flows (3 decades of 6)."""
        ns = self.fig.flow_counts()
        if not ns or ns[-1] < t["min_flows"]:
            return
        most = ns[-1]
        v = {n: self.fig.med("scale", f"bpf_fq:{n}", t["metric"]) for n in (1, 1000, most)}
        if None in v.values():
            return
        allowed = v[1] + 2 * max(v[1000] - v[1], 0)
        met = v[most] <= allowed
        self.add(f"bpf_fq {t['name']} ns, 1 to {most} flows", "logarithmic growth at most",
                 f"{v[1]:.0f} → {v[1000]:.0f} → {v[most]:.0f}", met,
                 phrases(f"1 to 1000 flows: {v[1]:.0f} → {v[1000]:.0f} ns; logarithmic growth "
                         f"allows {allowed:.0f} ns at {most}.", "" if met else link(t["explain"])))

    def policy_cost_target(self, t):
        """bpf_fq's policy on top of the BPF floor against fq's on top of bfifo."""
        rtt = {k: self.fig.med("cover", k, "rtt_p50") for k in ("bpf_fq", "bpf_floor", "fq", "bfifo")}
        if None in rtt.values():
            return
        ours = (rtt["bpf_fq"] - rtt["bpf_floor"]) * 1000
        theirs = (rtt["fq"] - rtt["bfifo"]) * 1000
        self.add("bpf_fq policy cost, ping-pong p50: (bpf_fq − bpf_floor) vs (fq − bfifo)",
                 "≤ fq's", f"{ours:.0f} vs {theirs:.0f} ns", ours <= theirs, link(t["explain"]))

    def hbm_rate_target(self, t):
        share = t["share"]
        cases = self.fig.s.get("hbm", {})
        shares = {k: c["agg"]["median"] / float(hbm_key(k)[1]) for k, c in cases.items()
                  if "agg" in c and hbm_key(k)[0] != HTB_ROW}
        low = sorted(k for k, v in shares.items() if v < share)
        why = ""
        if low:
            why = phrases("below in " + ", ".join(f"{k} ({shares[k]:.1%})" for k in low) + ".",
                          self.rounds_reaching(low, share), link(t["explain"]))
        self.add("HBM aggregate rate", f"≥ {share:.0%} of the limit",
                 None if not shares else f"{min(shares.values()):.1%} to {max(shares.values()):.1%}",
                 shares and not low, why)

    def hbm_rpc_target(self, t):
        """The RPC flow's P99 next to htb's at the same rate and flows, for some rows."""
        worse, total = [], 0
        for key in self.fig.s.get("hbm", {}):
            htb = self.fig.med("hbm", htb_case(key), "rpc_p99")
            mine = self.fig.med("hbm", key, "rpc_p99")
            if hbm_key(key)[0] not in t["rows"] or htb is None or mine is None:
                continue
            total += 1
            if mine >= htb:
                worse.append(f"{key} ({mine:.0f} vs {htb:.0f} µs)")
        why = ""
        if total:
            why = phrases("not lower in " + ", ".join(sorted(worse)) + "." if worse else "",
                          link(t["explain"]))
        self.add(f"HBM 10K-RPC P99, {t['who']}", "lower than htb's",
                 None if not total else f"{total - len(worse)} of {total} cases",
                 total and not worse, why)

    def hbm_ratios(self):
        """Each HBM row's ratios to htb are headline ratios: the boots are compared."""
        for key in self.fig.hbm_cases():
            row, limit, flows = hbm_key(key)
            for m, name in (("agg", "rate"), ("rpc_p99", "10K P99")):
                x = self.fig.htb_ratio(key, m)
                if x is not None:
                    self.ratios[f"HBM {row} {limit} Mbit/s {flows} flows, {name} / htb"] = (
                        x, self.fig.round_ratios("hbm", key, htb_case(key), m) or [])

    def cni_target(self, t):
        """bpfqdisc-bandwidth against the reference plugin, row by row: each
        comparison's ratio is a headline ratio; the target is met if ours is
        better on every one."""
        limit = self.fig.med("cni", "limit", "mbit")
        comparisons = [(f"{b} bits, {d}, {name}", "cni", f"ours:{b}:{d}", f"ref:{b}:{d}", m, BETTER[m])
                       for b, d in cni_rows(self.fig) for m, name, _ in CNI_ROW_METRICS]
        comparisons += [(name, "cni_pods", "ours", "ref", m, "lower")
                        for m, name in CNI_POD_METRICS + [("kmem_kb", "kernel memory, all pods (kB)")]]
        misses, total = [], 0
        for what, table, a, b, m, better in comparisons:
            x, y = self.fig.med(table, a, m), self.fig.med(table, b, m)
            if x is None or y is None:
                continue
            total += 1
            r = self.fig.paired(table, a, b, m) if table == "cni" else ratio(x, y)
            if r:  # 0 retransmits against some: no ratio to compare boots by
                self.ratios[f"CNI {what}, ours / reference"] = (
                    r, (self.fig.round_ratios(table, a, b, m) or []) if table == "cni" else [])
            beats = cni_beats(x, y, better, limit)
            if beats != "yes":
                misses.append(f"{what} ({beats}: {x:g} vs {y:g})")
            self.cni_rows.append([what, f"{x:g}", f"{y:g}", "–" if r is None else f"{r:.3g}×",
                                  BETTER_TEXT[better].format(limit=f"{limit:g}" if limit else "?"), beats])
        if total:
            self.add("bpfqdisc-bandwidth against the reference plugin", "better on every row",
                     f"{total - len(misses)} of {total} rows", not misses,
                     phrases("not better in " + "; ".join(misses) + "." if misses else "",
                             link(t["explain"])))

    # --- the figures a why shows ---------------------------------------

    def figures(self, t):
        name = t.get("figures")
        return FIGURES[name](self, t) if name else ""

    def floor_figures(self, t):
        """Where the cheapest BPF FIFO already misses a ping-pong target
        against kernel qdisc b: the floor's cost against bfifo's."""
        a, b, m = t["a"], t["b"], t["metric"]
        rtt = {k: self.fig.med("cover", k, m) for k in (a, b, "bfifo", "bpf_floor")}
        if None in rtt.values() or rtt["bpf_floor"] <= rtt[b]:
            return ""
        ns = lambda x, y: (rtt[x] - rtt[y]) * 1000
        own = ns(b, "bfifo")
        own = f"{b} {own:.0f} ns over bfifo" if own >= 0 else f"{b} {-own:.0f} ns under bfifo (it bypasses)"
        return (f"bpf_floor {rtt['bpf_floor']:.3f} µs a round trip, "
                f"{rtt['bpf_floor'] / rtt[b]:.3f}× {b}'s {rtt[b]:.3f}: the BPF ops "
                f"{ns('bpf_floor', 'bfifo'):.0f} ns over bfifo, {a}'s policy "
                f"{ns(a, 'bpf_floor'):.0f} ns over the floor, {own}; "
                f"{link('why-floor', 'no BPF qdisc meets it on this kernel')}.")

    def tcp_floor_figures(self, t):
        """Throughput against kernel qdisc b: where a stands to the floor,
        the cheapest BPF FIFO against a C FIFO that never bypasses."""
        a, b, m = t["a"], t["b"], t["metric"]
        own, floor = self.fig.paired("cover", a, b, m), self.fig.paired("cover", "bpf_floor", "plug", m)
        if own is None or floor is None:
            return ""
        return (f"{a} / {b} {own:.3f}×, bpf_floor / plug {floor:.3f}× (the floor: the cheapest "
                f"BPF FIFO against a C FIFO doing the same work; {link('why-floor', 'the BPF ops')})")

    def fifo_steps_figures(self, t):
        """The steps from pfifo_fast down to bpf_fifo, as measured."""
        r = lambda k: self.fig.paired("cost", k, "pfifo_fast", "pps")
        have = [(k, r(k), what) for k, what in FIFO_STEPS if r(k) is not None]
        if not have:
            return ""
        steps = "; ".join(f"{k} {x:.2f}×" + (f" ({what})" if what else "") for k, x, what in have)
        fifo_ns, fifo_share = self.fig.bpf_per_packet("bpf_fifo")
        floor_ns, floor_share = self.fig.bpf_per_packet("bpf_floor")
        if fifo_share is None or floor_share is None:
            return f"Section 2, pkt/s / pfifo_fast: {steps}."
        return (f"Section 2, pkt/s / pfifo_fast: {steps}. bpf_stats: bpf_fifo {fifo_share:.1%} "
                f"of a packet's time ({fifo_ns / 1000:.1f} µs), bpf_floor {floor_share:.1%}, "
                f"the difference {(fifo_ns - floor_ns) / 1000:.1f} µs per packet; without the "
                f"bypass, about {1 - fifo_share:.2f}× at best.")

    def overlap(self, t, a, b, m):
        """Why a miss may be noise: the two ranges of rounds overlap."""
        ga, gb = self.fig.get(t, a, m), self.fig.get(t, b, m)
        if not ga or not gb or ga["max"] < gb["min"] or gb["max"] < ga["min"]:
            return ""
        return (f"The rounds' ranges overlap ({a} {ga['min']:.0f}–{ga['max']:.0f}, {b} "
                f"{gb['min']:.0f}–{gb['max']:.0f}): {ga['n']} rounds cannot tell them apart"
                + ("; BENCH=full runs 5." if ga["n"] < 5 else "."))

    def patched_effect(self, t, a, b, m):
        """What the patched kernel made of a missed ratio (section 6)."""
        if not self.kernels:
            return ""
        t = {"fifo": "cost" if m == "pps" else "cover"}.get(t, t)
        x = [self.kernels[k][0].paired(t, a, b, m) for k in ("stock", "patched")]
        if None in x:
            return ""
        return (f"Section 6, boot 1: {a} / {b} {x[0]:.2f}× on the stock kernel, "
                f"{x[1]:.2f}× on the patched one.")

    def rounds_reaching(self, keys, share):
        """Which HBM cases missed the share in every round, not only by the median."""
        never = [k for k in keys
                 if self.fig.get("hbm", k, "agg")["max"] < share * float(hbm_key(k)[1])]
        if not never:
            return f"Each of them reached {share:.0%} in at least one round."
        return (f"{len(keys) - len(never)} of them reached {share:.0%} in at least one round; "
                "no round did in " + ", ".join(never) + ".")


# Which way is better for each of section 7's figures.
BETTER = {"first": "near", "steady": "higher", "retrans": "lower", "ping_med": "lower",
          "ping_p90": "lower"}
BETTER_TEXT = {"near": "nearer the limit ({limit} Mbit/s)", "higher": "higher, up to the limit",
               "lower": "lower"}


def cni_beats(x, y, better, limit):
    """yes, no or equal: ours (x) against the reference (y)."""
    if better == "near":
        if limit is None:
            return "not measured"
        x, y = -abs(x - limit), -abs(y - limit)
    elif better == "higher" and limit is not None and x > limit:
        return "no"
    elif better == "lower":
        x, y = -x, -y
    return "yes" if x > y else ("equal" if x == y else "no")


KINDS = {"ratio": Verdicts.ratio_target, "growth": Verdicts.growth_target,
         "policy_cost": Verdicts.policy_cost_target, "hbm_rate": Verdicts.hbm_rate_target,
         "hbm_rpc": Verdicts.hbm_rpc_target, "cni": Verdicts.cni_target}
FIGURES = {"floor": Verdicts.floor_figures, "tcp_floor": Verdicts.tcp_floor_figures,
           "fifo_steps": Verdicts.fifo_steps_figures}
