#!/bin/dash
# deploy/kubernetes/*.yaml against the Kubernetes API's schemas
# (tools/k8s-validate, npm's kubernetes-models, offline), and the
# validator's own sense: a copy with a wrong type and one without a
# required field must fail. One PASS/FAIL/SKIP line per check.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
. "$TOP/selftests/cli/lib.sh"
modules=${K8S_VALIDATE_MODULES:-$TOP/.cache/npm/node_modules}

if ! command -v node >/dev/null || [ ! -d "$modules/kubernetes-models" ]; then
	echo "SKIP cli/k8s_manifest: no node or no $modules/kubernetes-models (make deps installs them)"
	exit 0
fi
for f in "$TOP"/deploy/kubernetes/*.yaml; do
	out=$("$TOP/tools/k8s-validate" "$f" 2>&1)
	if [ $? = 0 ]; then pass "k8s_manifest_$(basename "$f" .yaml)"
	else fail "k8s_manifest_$(basename "$f" .yaml)" "$out"; fi
done
f=$TOP/deploy/kubernetes/bpfqdisc-bandwidth.yaml
sed 's/hostNetwork: true/hostNetwork: "yes"/' "$f" >"$D/type.yaml"
sed 's/^  selector:/  selectorr:/' "$f" >"$D/required.yaml"
for bad in type required; do
	out=$("$TOP/tools/k8s-validate" "$D/$bad.yaml" 2>&1)
	if [ $? != 0 ] && [ "$(echo "$out" | wc -l)" = 1 ]; then pass "k8s_validate_refuses_$bad"
	else fail "k8s_validate_refuses_$bad" "accepted: $out"; fi
done
exit $failed
