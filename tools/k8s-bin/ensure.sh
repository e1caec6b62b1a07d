#!/usr/bin/env bash
# Makes the real control-plane binaries available for the integration suites (build once, then cached).
# Without Go the suites skip with a message, except in CI (KRECONCILE_REQUIRE_APISERVER=1) where this fails.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ -n "${KRECONCILE_USE_EXISTING_CLUSTER:-}" ] || [ -n "${TEST_ASSET_KUBE_APISERVER:-}" ] || [ -n "${KUBEBUILDER_ASSETS:-}" ]; then exit 0; fi
if ! command -v go >/dev/null 2>&1; then
  echo "kreconcile: Go not found; the real-API-server suites will skip (install Go >= 1.26 to run them)" >&2
  [ "${KRECONCILE_REQUIRE_APISERVER:-}" = 1 ] && exit 1
  exit 0
fi
echo "kreconcile: ensuring kube-apiserver/etcd/kube-controller-manager test binaries (first build takes ~10 minutes)" >&2
bash "$here/build.sh" >/dev/null || { [ "${KRECONCILE_REQUIRE_APISERVER:-}" = 1 ] && exit 1; echo "kreconcile: building the test binaries failed; the real-API-server suites will skip" >&2; exit 0; }
