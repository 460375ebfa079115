#!/usr/bin/env python3
"""fq_prof.py IN OUT: bpf/fq.bpf.c (or a copy) with clock reads around its
paths, for selftests/progs/fq_prof.sh. On the virtual clock a nanosecond
is an instruction, so the differences of bpf_ktime_get_ns() are the
instructions each path ran; prof_ns[2k] sums section k's, prof_ns[2k+1]
counts its runs. Section 9 is two reads back to back: what one read adds
(the runner subtracts it once from each section; a section holding
others pays theirs too). Fails when fq.bpf.c no longer has a line it
hooks into."""
import sys

SECTIONS = """
#define PROF_NOW() bpf_ktime_get_ns()
#define PROF_END(k, t0) do {						\\
	u64 __t = bpf_ktime_get_ns();					\\
	prof_ns[2 * (k)] += __t - (t0);					\\
	prof_ns[2 * (k) + 1]++;						\\
} while (0)
__u64 prof_ns[32];
"""

HOOKS = [
    ('BQ_ENQUEUE(fq)\n{\n', SECTIONS + 'BQ_ENQUEUE(fq)\n{\n\tu64 t0 = PROF_NOW(), tc;\n'),
    ('\t\treturn bq_drop(sch, inst, skb, to_free, BQ_DROP_NO_INSTANCE);\n',
     '\t\treturn bq_drop(sch, inst, skb, to_free, BQ_DROP_NO_INSTANCE);\n'
     '\ttc = PROF_NOW();\n\tPROF_END(9, tc);\n'),
    ('\tif (!fresh && fq_fastpath_ok(',
     '\tPROF_END(0, t0);\n\tif (!fresh && fq_fastpath_ok('),
    ('\t\treturn fq_band_push(sch, inst, q, &q->internal, skb, time, band, to_free);',
     '\t\tret = fq_band_push(sch, inst, q, &q->internal, skb, time, band, to_free);\n'
     '\t\tPROF_END(1, t0);\n\t\treturn ret;'),
    ('\tidx = fq_classify(inst, q, p, key, now);\n',
     '\ttc = PROF_NOW();\n\tidx = fq_classify(inst, q, p, key, now);\n\tPROF_END(3, tc);\n'),
    ('\t\tinst->cnt.x[X_INACTIVE]--;\n\treturn ret;',
     '\t\tinst->cnt.x[X_INACTIVE]--;\n\tPROF_END(2, t0);\n\treturn ret;'),
    ('\tu64 now, rate, len, due = 0;\n', '\tu64 now, rate, len, due = 0, t0, tc;\n'),
    ('\tq = bq_enter(sch, &inst, &p);\n\tif (!q)\n\t\treturn NULL;\n\n'
     '\tskb = bq_skbq_pop(inst, &q->pool, &q->internal);\n'
     '\tif (skb) {\n\t\tfq_band_left(q, skb);\n\t\treturn bq_dequeued(sch, inst, skb);\n\t}\n',
     '\tt0 = PROF_NOW();\n\tq = bq_enter(sch, &inst, &p);\n\tif (!q)\n\t\treturn NULL;\n\n'
     '\tskb = bq_skbq_pop(inst, &q->pool, &q->internal);\n'
     '\tif (skb) {\n\t\tfq_band_left(q, skb);\n\t\tskb = bq_dequeued(sch, inst, skb);\n'
     '\t\tPROF_END(4, t0);\n\t\treturn skb;\n\t}\n'),
    ('\tidx = fq_pick(inst, q, p, now, &due);\n\tif (idx == FQ_AGAIN) {',
     '\tPROF_END(5, t0);\n\ttc = PROF_NOW();\n\tidx = fq_pick(inst, q, p, now, &due);\n'
     '\tif (idx == FQ_AGAIN) {'),
    ('\tif (!f) {\n\t\tif (q->time_next_delayed_flow != FQ_NONE)\n',
     '\tif (!f) {\n\t\tPROF_END(6, tc);\n\t\tif (q->time_next_delayed_flow != FQ_NONE)\n'),
    ('\t\t\t\t\t\t    p->timer_slack);\n\t\treturn NULL;\n\t}\n',
     '\t\t\t\t\t\t    p->timer_slack);\n\t\tPROF_END(8, t0);\n\t\treturn NULL;\n\t}\n'
     '\tPROF_END(7, tc);\n\ttc = PROF_NOW();\n'),
]

# Every return of a packet after the pick: section 10 from there, 11 in all.
TAIL_FROM = '\tskb = fq_flow_pop(inst, q, f, now);\n\tif (!skb)\n\t\treturn NULL;\n\t/* The packet sch_fq'
TAIL_TO = '/* --- init, reset'


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: fq_prof.py IN OUT')
    src = open(sys.argv[1]).read()
    for old, new in HOOKS:
        if src.count(old) != 1:
            sys.exit('fq_prof.py: %s: no single place for %r' % (sys.argv[1], old[:60]))
        src = src.replace(old, new)
    a, b = src.find(TAIL_FROM), src.find(TAIL_TO)
    if a < 0 or b < a:
        sys.exit('fq_prof.py: %s: no dequeue tail to hook' % sys.argv[1])
    tail = src[a:b].replace('return bq_dequeued(sch, inst, skb);',
                            '{ skb = bq_dequeued(sch, inst, skb); PROF_END(10, tc); '
                            'PROF_END(11, t0); return skb; }')
    open(sys.argv[2], 'w').write(src[:a] + tail + src[b:])


main()
