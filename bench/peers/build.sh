#!/usr/bin/env bash
# Builds the peer programs of `npm run bench:fleet` from the Go module proxy (versions pinned in
# each go.mod/go.sum) and caches them under ~/.cache/kreconcile/peers/<version>/; prints the path
# of the flux-ssa binary. The cache key holds the pinned version and a hash of the sources, so an
# edited main.go or go.sum builds again.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if ! command -v go >/dev/null 2>&1; then
  echo "bench/peers/build.sh: Go not found; install Go >= 1.26 (https://go.dev/dl) to build the Flux peer" >&2
  exit 1
fi
source_dir="$here/flux-ssa"
version="$(awk '$1 == "github.com/fluxcd/pkg/ssa" { print $2 }' "$source_dir/go.mod")"
if [ -z "$version" ]; then
  echo "bench/peers/build.sh: $source_dir/go.mod does not pin github.com/fluxcd/pkg/ssa" >&2
  exit 1
fi
digest="$(cat "$source_dir/go.mod" "$source_dir/go.sum" "$source_dir/main.go" | sha256sum | cut -c1-12)"
out_dir="${KRECONCILE_PEERS_CACHE:-$HOME/.cache/kreconcile/peers}/ssa-$version-$digest"
binary="$out_dir/flux-ssa"
if [ ! -x "$binary" ]; then
  echo "bench/peers/build.sh: building flux-ssa (fluxcd/pkg/ssa $version) into $out_dir (first build takes a few minutes)" >&2
  mkdir -p "$out_dir"
  # -mod=readonly: go.sum is committed, a build never rewrites it; GOFLAGS from the caller is kept otherwise.
  (cd "$source_dir" && go build -mod=readonly -trimpath -o "$binary.tmp" .) || {
    echo "bench/peers/build.sh: go build of $source_dir failed (see above)" >&2
    exit 1
  }
  mv "$binary.tmp" "$binary"
fi
echo "$binary"
