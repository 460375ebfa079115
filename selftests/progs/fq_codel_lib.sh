# Helpers for the bpf_fq_codel kernel tests (selftests/kernel/test_fq_codel*.sh),
# sourced after lib.sh and fq_lib.sh. The kernel's fq_codel is the reference.

# fqc_setup: bpf_fq_codel registered, the kernel's fq_codel available, and
# netns a and b joined by veth, with b a slow receiver (lib.sh) so that
# va's qdisc really queues.
fqc_setup() {
	modprobe sch_fq_codel 2>/dev/null || true
	expect "$BQ" load fq_codel
	veth_pair
	slow_receiver
}

# fqc_root KIND [PARAM VALUE]...: KIND as the root of netns $FQC_NS's
# $FQC_DEV (a's va unless set), the fq_codels with the parameters given;
# the kernel's fq_codel with noecn, as bpf_fq_codel cannot mark CE and
# always drops.
fqc_root() {
	k=$1 ns=${FQC_NS:-a} dev=${FQC_DEV:-va}
	shift
	case $k in
	fq_codel) expect ip netns exec $ns tc qdisc replace dev $dev root fq_codel noecn "$@" ;;
	bpf_fq_codel) expect "$BQ" -n $ns qdisc replace dev $dev root bpf_fq_codel "$@" ;;
	*) expect ip netns exec $ns tc qdisc replace dev $dev root "$k" ;;
	esac
}
