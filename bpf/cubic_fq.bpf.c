// SPDX-License-Identifier: GPL-2.0
/*
 * cubic_fq: the kernel's cubic, plus what sch_fq does to every socket it
 * sees: sk_pacing_status = SK_PACING_FQ. TCP then stamps each skb with its
 * departure time at sk_pacing_rate (EDT) and leaves the pacing to the
 * qdisc, which only has to honour the timestamps. A BPF qdisc cannot write
 * to the socket; a BPF congestion control may (bpf_tcp_ca lets it write
 * sk_pacing_status), and cubic's own functions are kfuncs. So bpf_fq gets
 * sch_fq's pacing model without a kernel change: it never paces these
 * sockets by rate itself (they are not SK_PACING_NONE).
 *
 * Opt-in, for hosts whose egress qdisc is bpf_fq or fq: anywhere else a
 * socket marked SK_PACING_FQ is not paced at all. See docs/fq.md.
 *	bpftool struct_ops register .output/cubic_fq.bpf.o /sys/fs/bpf
 *	sysctl net.ipv4.tcp_congestion_control=cubic_fq
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

void cubictcp_init(struct sock *sk) __ksym;
u32 cubictcp_recalc_ssthresh(struct sock *sk) __ksym;
void cubictcp_cong_avoid(struct sock *sk, u32 ack, u32 acked) __ksym;
void cubictcp_state(struct sock *sk, u8 new_state) __ksym;
void cubictcp_cwnd_event_tx_start(struct sock *sk) __ksym;
void cubictcp_acked(struct sock *sk, const struct ack_sample *sample) __ksym;
u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

SEC("struct_ops")
void BPF_PROG(cubic_fq_init, struct sock *sk)
{
	cubictcp_init(sk);
	/* As sch_fq does for every socket it classifies, pacing on. */
	sk->sk_pacing_status = SK_PACING_FQ;
}

SEC("struct_ops")
u32 BPF_PROG(cubic_fq_ssthresh, struct sock *sk)
{
	return cubictcp_recalc_ssthresh(sk);
}

SEC("struct_ops")
void BPF_PROG(cubic_fq_cong_avoid, struct sock *sk, u32 ack, u32 acked)
{
	cubictcp_cong_avoid(sk, ack, acked);
}

SEC("struct_ops")
void BPF_PROG(cubic_fq_set_state, struct sock *sk, u8 new_state)
{
	cubictcp_state(sk, new_state);
}

SEC("struct_ops")
void BPF_PROG(cubic_fq_tx_start, struct sock *sk)
{
	cubictcp_cwnd_event_tx_start(sk);
}

SEC("struct_ops")
void BPF_PROG(cubic_fq_acked, struct sock *sk, const struct ack_sample *sample)
{
	cubictcp_acked(sk, sample);
}

SEC("struct_ops")
u32 BPF_PROG(cubic_fq_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops.link")
struct tcp_congestion_ops cubic_fq = {
	.init = (void *)cubic_fq_init,
	.ssthresh = (void *)cubic_fq_ssthresh,
	.cong_avoid = (void *)cubic_fq_cong_avoid,
	.set_state = (void *)cubic_fq_set_state,
	.cwnd_event_tx_start = (void *)cubic_fq_tx_start,
	.pkts_acked = (void *)cubic_fq_acked,
	.undo_cwnd = (void *)cubic_fq_undo_cwnd,
	.name = "cubic_fq",
};
