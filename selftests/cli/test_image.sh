#!/bin/dash
# make image into a scratch directory: the DaemonSet's image
# (deploy/kubernetes/) is an OCI archive that umoci unpacks (its digests
# and sizes hold), named as the manifest's image is, the same bytes when
# made twice, and the manifest's install command, run in the image's root,
# puts a plugin that answers VERSION into the node's CNI bin dir. The
# metrics container's command, run in the image's root, answers GET
# /metrics with the CGI running the image's bpfqdisc: a page promtool takes,
# or on a kernel without BPF qdiscs (this host's, as a rule) a 500 whose
# reason, bpfqdisc's own error, is in the container's log.
# Needs no root (a user namespace) and no BPF qdisc kernel. One PASS/FAIL
# line per check.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$TOP/selftests/cli/lib.sh"
modules=${K8S_VALIDATE_MODULES:-$TOP/.cache/npm/node_modules}

# make deps installs these: missing, they fail the test rather than skip it.
for tool in umoci jq node unshare; do
	command -v $tool >/dev/null || { fail image_tools "$tool missing: run make deps"; exit 1; }
done
[ -d "$modules/yaml" ] || { fail image_tools "no $modules/yaml: run make deps"; exit 1; }

version=$("$TOP/bin/bpfqdisc" --version | sed -n 's/^bpfqdisc \([^ ]*\) .*/\1/p')
archive=$T/out/bpfqdisc-image_$version.tar
out=$(mk image DEB_DIR="$T/out" 2>&1)
rc=$?
if [ $rc != 0 ] || [ ! -f "$archive" ]; then
	fail image_build "make image exit $rc, no $(basename "$archive"): $(oneline "$(printf '%s\n' "$out" | tail -n 5)")"
	exit 1
fi
pass image_build

cp "$archive" "$T/first.tar"
mk image DEB_DIR="$T/out" >/dev/null 2>&1
if cmp -s "$archive" "$T/first.tar"; then pass image_reproducible
else fail image_reproducible "two runs of make image differ"; fi

mkdir "$T/layout"
tar -C "$T/layout" -xf "$archive"
out=$(umoci unpack --rootless --image "$T/layout:$version" "$T/bundle" 2>&1)
if [ $? = 0 ] && [ -x "$T/bundle/rootfs/usr/lib/cni/bpfqdisc-bandwidth" ]; then pass image_unpacks
else fail image_unpacks "umoci unpack: $(oneline "$out")"; exit 1; fi

# The DaemonSet's images and its install container's command, as YAML reads them.
node --input-type=module -e '
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
const { parse } = createRequire(process.argv[1] + "/")("yaml");
const spec = parse(readFileSync(process.argv[2], "utf8")).spec.template.spec;
const all = [...spec.initContainers, ...spec.containers];
console.log([...new Set(all.map((c) => c.image))].join(" "));
console.log(JSON.stringify(spec.containers.find((c) => c.name === "metrics").command));
console.log(spec.initContainers.find((c) => c.name === "install").command.at(-1));
' "$modules" "$TOP/deploy/kubernetes/bpfqdisc-bandwidth.yaml" >"$T/manifest" 2>&1 ||
	{ fail image_manifest "could not read the manifest: $(oneline "$(cat "$T/manifest")")"; exit 1; }
images=$(sed -n 1p "$T/manifest")
named=$(jq -r '.manifests[0].annotations["io.containerd.image.name"]' "$T/layout/index.json")
if [ "docker.io/$images" = "$named" ]; then pass image_named_as_manifest
else fail image_named_as_manifest "manifest's image(s) '$images', archive's '$named'"; fi

sed -n '3,$p' "$T/manifest" >"$T/install.sh"
out=$(unshare -r chroot "$T/bundle/rootfs" /bin/sh -c "$(cat "$T/install.sh")
	CNI_COMMAND=VERSION /host/opt/cni/bin/bpfqdisc-bandwidth" 2>&1)
if [ $? = 0 ] && [ "$(printf '%s' "$out" | jq -r .cniVersion 2>/dev/null)" = 1.1.0 ] &&
	[ -z "$(ls -A "$T/bundle/rootfs/host/opt/cni/bin" | grep -vx bpfqdisc-bandwidth)" ]; then
	pass image_install_command
else
	fail image_install_command "$(oneline "$out"); bin dir: $(ls -A "$T/bundle/rootfs/host/opt/cni/bin" | tr '\n' ' ')"
fi
# The metrics container's command in the image's root, in a netns of its
# own (its port is no one else's there); the image's wget fetches the page.
# sysfs is the host's, for bpfqdisc to see what the kernel is.
metrics=$(sed -n 2p "$T/manifest")
port=$(printf '%s' "$metrics" | jq -r '.[index("-p") + 1]')
out=$(port=$port unshare -rnm /bin/sh -c '
	root=$1
	shift
	ip link set lo up && mount --rbind /sys "$root/sys" || exit 1
	chroot "$root" "$@" 2>"$root/tmp/httpd.log" &
	i=0
	until [ -n "$(ss -Hltn "sport = :$port")" ] || [ $i -ge 200 ]; do
		i=$((i + 1))
		sleep 0.05
	done
	chroot "$root" /bin/busybox wget -q -O /tmp/page http://127.0.0.1:$port/metrics 2>&1
	echo "wget exit $?"
	kill $!' sh "$T/bundle/rootfs" $(printf '%s' "$metrics" | jq -r '.[]') 2>&1)
root=$T/bundle/rootfs
if printf '%s' "$out" | grep -q '^wget exit 0$'; then
	lint=$(promtool check metrics <"$root/tmp/page" 2>&1)
	if [ -z "$lint" ]; then pass image_metrics_command
	else fail image_metrics_command "promtool: $(oneline "$lint")"; fi
elif printf '%s' "$out" | grep -q ' 500 ' && grep -q '^bpfqdisc: ' "$root/tmp/httpd.log"; then
	pass image_metrics_command
else
	fail image_metrics_command "$(oneline "$out"); log: $(oneline "$(cat "$root/tmp/httpd.log")")"
fi
exit $failed
