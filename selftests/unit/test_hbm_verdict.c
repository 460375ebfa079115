// SPDX-License-Identifier: GPL-2.0
/*
 * HBM's verdict table (include/hbm_verdict.h), which every HBM program
 * calls: the 2019 rules of each mode, one answer for packets exempt from
 * the drop horizon, and the IP bytes a packet counts.
 */
#include <stdbool.h>
#include <linux/types.h>
#include "hbm.h"
#include "hbm_verdict.h"
#include "unit.h"

#define MTU 1500
/* bpf/hbm_cg.bpf.c's levels, in bytes of debt. */
static const struct hbm_rules credit = {
	.mark = 40 * MTU, .large_drop = 385 * MTU, .drop = 400 * MTU,
	.other_drop = 0, .cn_chance = true, .small_other_pass = true,
};
/* bpf/hbm_edt.bpf.h's at 10 Gbit/s, in ns ahead. */
static const struct hbm_rules edt = {
	.mark = 50000, .large_drop = 480000, .drop = 500000, .other_drop = 50000,
	.keep_ack_clock = true, .small_other_pass = true,
};

static struct hbm_verdict_flags judge(const struct hbm_rules *r, __s64 depth, __u64 len,
				      bool tcp, bool ect, bool few)
{
	struct hbm_judged j = { .depth = depth, .len = len, .is_tcp = tcp, .ect = ect,
				.few_in_flight = few };

	return hbm_judge(r, &j);
}

static void credit_mode(void)
{
	struct hbm_verdict_flags v;

	v = judge(&credit, 10 * MTU, 1400, false, false, false);
	EXPECT(v.drop, "UDP over 120 B in debt: dropped, as 2019");
	v = judge(&credit, 10 * MTU, 100, false, false, false);
	EXPECT(!v.drop, "UDP of 100 B in debt passes");
	v = judge(&credit, -MTU, 1400, false, false, false);
	EXPECT(!v.drop && !v.cn && !v.ce, "UDP with credit passes untouched");
	v = judge(&credit, 50 * MTU, 1400, false, true, false);
	EXPECT(!v.drop && v.ce, "ECN-capable UDP in the mark region: CE");
	v = judge(&credit, 50 * MTU, 1500, true, true, false);
	EXPECT(!v.drop && v.ce && !v.cn, "ECT TCP in the mark region: CE");
	v = judge(&credit, 390 * MTU, 1500, true, false, false);
	EXPECT(v.drop && v.cn, "TCP past the large-packet drop level: drop + CN");
	v = judge(&credit, 390 * MTU, 100, true, false, false);
	EXPECT(!v.drop, "a pure ACK keeps 15 MTU of headroom");
	v = judge(&credit, 390 * MTU, 1500, true, false, true);
	EXPECT(v.drop, "credit mode has no ACK-clock exemption");
}

/* A request in its flow's turn is stopped only by the drop level. */
static void in_turn(void)
{
	struct hbm_judged j = { .depth = 390 * MTU, .len = 1500, .is_tcp = true, .in_turn = true };

	EXPECT(!hbm_judge(&credit, &j).drop, "in its turn past the large-packet level: passes");
	j.depth = 401 * MTU;
	EXPECT(hbm_judge(&credit, &j).drop, "in its turn past the drop level: dropped");
}

static void cn_by_chance(void)
{
	int cn = 0;

	/* Halfway through the mark region: CN for half the chances. */
	for (__u32 c = 0; c < 1000; c++) {
		struct hbm_judged j = { .depth = 40 * MTU + 345 * MTU / 2, .len = 1500,
					.is_tcp = true, .chance = c * 345 * MTU / 1000 };

		cn += hbm_judge(&credit, &j).cn;
	}
	EXPECT(cn >= 490 && cn <= 510, "%d of 1000", cn);
	EXPECT(!judge(&edt, 100000, 1500, true, false, false).cn, "EDT mode: no CN by chance");
}

static void edt_mode(void)
{
	struct hbm_verdict_flags v;

	v = judge(&edt, 60000, 1400, false, false, false);
	EXPECT(v.drop && v.marked, "UDP past the mark threshold: dropped, as 2019");
	v = judge(&edt, 40000, 1400, false, false, false);
	EXPECT(!v.drop && !v.marked, "UDP under the mark threshold passes");
	v = judge(&edt, 60000, 84, false, false, false);
	EXPECT(!v.drop, "a ping passes");
	v = judge(&edt, 60000, 1400, false, true, false);
	EXPECT(!v.drop && v.ce, "ECN-capable UDP: CE");
	v = judge(&edt, 490000, 1500, true, false, false);
	EXPECT(v.drop && v.cn, "TCP past the horizon: drop + CN");
}

/* Exempt from the horizon: the cgroup and qdisc programs used to disagree. */
static void exempt(void)
{
	struct hbm_verdict_flags v;

	v = judge(&edt, 600000, 1500, true, true, true);
	EXPECT(!v.drop && v.exempt && v.ce && !v.cn && v.marked, "ECT: passes with CE");
	v = judge(&edt, 600000, 1500, true, false, true);
	EXPECT(!v.drop && v.exempt && !v.ce && v.cn, "not ECT: passes with CN");
	v = judge(&edt, 600000, 1400, false, false, true);
	EXPECT(v.drop && !v.exempt, "only TCP is exempt");
}

/*
 * IP bytes: both programs' inputs for one TSO packet of 10 segments, 1448
 * bytes of TCP payload each, 20 + 32 bytes of IP and TCP headers, over
 * Ethernet (14 bytes): the cgroup program parses 52 header bytes, the qdisc
 * derives them from tc's pkt_len (qdisc_pkt_len_init). Both count 10 wire
 * packets of 1500 bytes.
 */
static void ip_bytes(void)
{
	__u32 first = 52 + 10 * 1448, mac = 14, skb_len = mac + first;
	__u32 pkt_len = skb_len + 9 * (mac + 52);

	EXPECT(hbm_ip_bytes(first, 10, 52) == 15000, "cgroup: 10 segments of 1500 bytes");
	EXPECT(hbm_ip_bytes(skb_len - mac, 10, (pkt_len - skb_len) / 9 - mac) == 15000,
	       "qdisc: the same from pkt_len");
	EXPECT(hbm_ip_bytes(1500, 1, 52) == 1500, "one segment: its length");
	EXPECT(hbm_ip_bytes(1500, 0, 52) == 1500, "segments not counted (0): one");
	EXPECT(hbm_ip_bytes(60000, 65535, 65535) == 60000 + 65534ULL * 65535,
	       "no 32-bit overflow");
}

int main(void)
{
	unit_file = "hbm_verdict";
	RUN(credit_mode);
	RUN(in_turn);
	RUN(cn_by_chance);
	RUN(edt_mode);
	RUN(exempt);
	RUN(ip_bytes);
	return unit_failed;
}
