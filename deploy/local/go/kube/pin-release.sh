#!/usr/bin/env bash
# Re-pin the wrapper module to one Kubernetes release: require k8s.io/kubernetes at that tag
# and replace every staging module it requires (k8s.io/api, apiserver, client-go, ...) with
# the matching v0.<minor>.<patch> tag. The list comes from the go.mod the module proxy serves
# for that release, so it never drifts from what upstream builds with.
# Usage: deploy/local/go/kube/pin-release.sh v1.34.4
set -euo pipefail
release="${1:?usage: $0 v1.MINOR.PATCH}"
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=../../go-env.sh
source "$here/../../go-env.sh"
cd "$here"

staging_version="v0.${release#v1.}"
upstream_mod="$(go mod download -json "k8s.io/kubernetes@$release" | sed -n 's/^\s*"GoMod": "\(.*\)",\?$/\1/p')"
# Staging modules are the ones upstream replaces with ./staging/src/... paths.
mapfile -t staging < <(sed -n 's#^\s*\(k8s\.io/[^ ]*\) => \./staging/src/.*#\1#p' "$upstream_mod")
required=()
for module in "${staging[@]}"; do
  grep -qE "^\s+$module v" "$upstream_mod" && required+=("$module")
done

{
  echo "// Wrapper module for the one-machine cluster's Kubernetes binaries; see pin-release.sh."
  echo "module kubevirt-ts/deploy/local/kube"
  echo
  echo "go $(sed -n 's/^go //p' "$upstream_mod")"
  echo
  echo "require k8s.io/kubernetes $release"
  echo
  echo "replace ("
  for module in "${required[@]}"; do echo "	$module => $module $staging_version"; done
  echo ")"
} >go.mod
rm -f go.sum
go mod tidy
# tidy records direct staging requirements at upstream's placeholder v0.0.0; name the real tag.
for module in $(go list -m -f '{{if and (not .Indirect) (eq .Version "v0.0.0")}}{{.Path}}{{end}}' all); do
  go mod edit -require="$module@$staging_version"
done
go mod tidy
echo "pinned k8s.io/kubernetes $release with ${#required[@]} staging modules at $staging_version"
