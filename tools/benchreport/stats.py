# SPDX-License-Identifier: GPL-2.0
"""One boot's figures: the median, range and per-round values of each
(table, case, metric), and the ratios between cases. No prose here."""
import statistics

from . import records

# The rows of the HBM table, in the 2019 commit's order.
HBM_ROWS = ["cubic", "cubic-edt", "dctcp", "dctcp-edt", "cubic-htb", "bpf_hbm"]
HTB_ROW = "cubic-htb"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt_ratio(x):
    return "–" if x is None else f"{x:.2f}×"


def hbm_key(key):
    """An HBM case, "row:limit:flows", as its three strings."""
    row, limit, flows = key.split(":")
    return row, limit, flows


def htb_case(key):
    """The htb case of the same limit and flows as an HBM case."""
    _, limit, flows = hbm_key(key)
    return f"{HTB_ROW}:{limit}:{flows}"


def hbm_order(key):
    row, limit, flows = hbm_key(key)
    return (int(limit), int(flows), HBM_ROWS.index(row) if row in HBM_ROWS else 99)


class Figures:
    def __init__(self, summary, notes, meta):
        self.s, self.notes = summary, notes
        self.meta = meta  # the run's mode, rounds, kernel, date

    @classmethod
    def of(cls, recs):
        """A boot's figures, from its records."""
        summary, notes = records.summarize(recs)
        return cls(summary, notes, notes.pop("meta", {}))

    def get(self, t, c, m):
        return self.s.get(t, {}).get(c, {}).get(m)

    def med(self, t, c, m):
        g = self.get(t, c, m)
        return g["median"] if g else None

    def cell(self, t, c, m, digits=0):
        """median (min–max), or the figure alone from one round."""
        g = self.get(t, c, m)
        if not g:
            return "–"
        f = f"{{:.{digits}f}}"
        if g["n"] == 1:
            return f.format(g["median"])
        return f"{f.format(g['median'])} ({f.format(g['min'])}–{f.format(g['max'])})"

    def note(self, t, c):
        return self.notes.get(t, {}).get(c)

    def round_ratios(self, t, a, b, m):
        """a/b of each round, or None if a and b did not run the same rounds."""
        ga, gb = self.get(t, a, m), self.get(t, b, m)
        if not ga or not gb or len(ga["values"]) != len(gb["values"]):
            return None
        return [x / y for x, y in zip(ga["values"], gb["values"]) if y]

    def paired(self, t, a, b, m):
        """Median over rounds of a/b measured in the same round: the host's
        load drifts between rounds, the qdiscs of one round share it."""
        rs = self.round_ratios(t, a, b, m)
        if rs is None:
            return ratio(self.med(t, a, m), self.med(t, b, m))
        return statistics.median(rs) if rs else None

    def ratio_quartiles(self, t, a, b, m):
        """(first quartile, median, third quartile) of the per-round ratios."""
        rs = self.round_ratios(t, a, b, m)
        if not rs or len(rs) < 4:
            return None
        q = statistics.quantiles(rs, n=4)
        return q[0], statistics.median(rs), q[2]

    def bpf_per_packet(self, k):
        """(ns of BPF per packet, its share of the time one packet takes): an
        enqueue and the dequeues that come with it (2 where not counted)."""
        e, d = self.med("cost", k, "enq_ns"), self.med("cost", k, "deq_ns")
        pps = self.med("cost", k, "pps")
        if e is None or d is None:
            return None, None
        per_pkt = e + (self.med("cost", k, "deq_per_enq") or 2.0) * d
        return per_pkt, (per_pkt * pps / 1e9 if pps else None)

    def flow_counts(self):
        """The flow counts of the scale table, ascending."""
        return sorted({int(c.split(":")[1]) for c in self.s.get("scale", {}) if ":" in c})

    def hbm_cases(self):
        return sorted(self.s.get("hbm", {}), key=hbm_order)

    def htb_ratio(self, key, m):
        """An HBM case's figure over htb's at the same limit and flows, paired by round."""
        if hbm_key(key)[0] == HTB_ROW:
            return None
        return self.paired("hbm", key, htb_case(key), m)
