#!/usr/bin/env bash
# Builds the real kube-apiserver, kube-controller-manager, kubectl and etcd used by the integration
# suites from the Go module proxy, into a cache keyed by version (outside the repository).
# Prints the binary directory on the last line. Skips work when the binaries are cached.
set -euo pipefail
K8S_VERSION="${K8S_VERSION:-1.36.3}"
ETCD_VERSION="${ETCD_VERSION:-3.6.8}"
WITH_KCM="${WITH_KCM:-1}"
CACHE="${K8S_BIN_CACHE:-$HOME/.cache/kreconcile/k8s-test-bin}"
OUT="$CACHE/k8s-v$K8S_VERSION-etcd-v$ETCD_VERSION"
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="-mod=mod -trimpath"

have() { [ -x "$OUT/$1" ]; }
if have kube-apiserver && have etcd && have kubectl && { [ "$WITH_KCM" = 0 ] || have kube-controller-manager; }; then
  echo "k8s test binaries cached in $OUT" >&2; echo "$OUT"; exit 0
fi
command -v go >/dev/null || { echo "go not found: install Go >= 1.26 to build the test binaries" >&2; exit 3; }
mkdir -p "$OUT"; work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
start=$(date +%s)

build_etcd() {
  mkdir "$work/etcd"; cd "$work/etcd"
  go mod init example.invalid/etcd-test-bin >/dev/null 2>&1
  go mod edit -go=1.26.0 -require="go.etcd.io/etcd/server/v3@v$ETCD_VERSION"
  printf '//go:build tools\n\npackage tools\n\nimport _ "go.etcd.io/etcd/server/v3"\n' > tools.go
  go mod tidy
  go build -ldflags "-s -w" -o "$OUT/etcd.tmp" go.etcd.io/etcd/server/v3 && mv "$OUT/etcd.tmp" "$OUT/etcd"
}

build_k8s() {
  mkdir "$work/k8s"; cd "$work/k8s"
  go mod init example.invalid/k8s-test-bin >/dev/null 2>&1
  go mod edit -go=1.26.0
  gomod="$(go mod download -json "k8s.io/kubernetes@v$K8S_VERSION" | jq -r .GoMod)"
  # Staging modules are v0.0.0 + ./staging replaces upstream; pin each to its published v0.<minor>.<patch>.
  staging="$( { sed -n 's#^[[:space:]]*\(k8s\.io/[A-Za-z0-9._-]*\) => \./staging/.*#\1#p' "$gomod"
                sed -n 's#^[[:space:]]*\(k8s\.io/[A-Za-z0-9._-]*\) v0\.0\.0\([[:space:]].*\)\{0,1\}$#\1#p' "$gomod"; } | sort -u )"
  sv="v0.${K8S_VERSION#1.}"
  for m in $staging; do go mod edit -replace="$m=$m@$sv"; done
  go mod edit -require="k8s.io/kubernetes@v$K8S_VERSION"
  printf '//go:build tools\n\npackage tools\n\nimport (\n\t_ "k8s.io/kubernetes/cmd/kube-apiserver"\n\t_ "k8s.io/kubernetes/cmd/kube-controller-manager"\n\t_ "k8s.io/kubernetes/cmd/kubectl"\n)\n' > tools.go
  go mod tidy
  minor="${K8S_VERSION#1.}"; minor="${minor%%.*}"
  LD="-s -w"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    LD="$LD -X $p.gitVersion=v$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
  done
  build_one() {
    have "$1" && return 0
    echo "building $1 v$K8S_VERSION" >&2
    go build -ldflags "$LD" -o "$OUT/$1.tmp" "k8s.io/kubernetes/cmd/$1" && mv "$OUT/$1.tmp" "$OUT/$1"
  }
  echo "kube-apiserver is the long one when cold: tens of minutes on 2 cores" >&2
  build_one kube-apiserver
  [ "$WITH_KCM" = 1 ] && build_one kube-controller-manager
  # kubectl: the CLI users drive a cluster with, for the kubectl sessions against `serve` and the real server.
  build_one kubectl
}

have etcd || { echo "building etcd v$ETCD_VERSION" >&2; build_etcd; }
build_k8s
"$OUT/kube-apiserver" --version >&2; "$OUT/etcd" --version >&2
echo "built in $(( $(date +%s) - start ))s" >&2
echo "$OUT"
