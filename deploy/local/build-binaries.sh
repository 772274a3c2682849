#!/usr/bin/env bash
# Builds the one-machine cluster's upstream binaries from their Go modules:
#   kube  (kube-apiserver, kube-controller-manager, kube-scheduler, kube-proxy, kubectl) from go/kube
#   etcd  from go/etcd
#   coredns (the cluster DNS add-on) from go/coredns
#   local-path-provisioner (dynamic Filesystem volumes) from go/local-path-provisioner: upstream's main
#   package itself, built at the versions its own go.mod pins (a main package cannot be imported, so
#   that folder has no main.go of its own)
#   the reference CNI plugins the node agents set pod networks up with (bridge, host-local, loopback)
#   from go/cni-plugins, likewise upstream's main packages, into bin/cni/ (the agents' CNI_PATH)
#   multus (the thin plugin, the node agents' primary CNI that delegates to those) from go/multus into bin/cni/
#   components: this suite's own TypeScript binaries (virt-operator, virt-api, virt-handler, virt-launcher ...),
#   bundled with esbuild into dist/components of this checkout, where the node agents' image store runs them
#   from (hack/bundle-components; cached the same way, by a hash of every file a bundle is made of)
# Arguments name the groups to build (components kube etcd coredns local-path-provisioner cni-plugins multus);
# none: all.
# Binaries and Go caches live under ${XDG_CACHE_HOME:-~/.cache}/kubevirt-ts. A module is rebuilt
# only when its go.mod, go.sum or main.go, its link flags, the package it builds or the build functions
# below changed: a hash
# stamp records the inputs (so adding a module to this script does not rebuild the others).
# A cold build compiles a few thousand packages; progress lines show how far it got.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=go-env.sh
source "$here/go-env.sh"

KUBE_COMPONENTS=(kube-apiserver kube-controller-manager kube-scheduler kube-proxy kubectl)
# the plugins of the node's conflist (deploy/local/node-agent/runtime/cni-config.ts), by package below plugins/,
# and static, for NetworkAttachmentDefinitions that give a secondary interface fixed addresses
CNI_PLUGINS=(main/bridge ipam/host-local main/loopback ipam/static)
PROGRESS_EVERY_SECONDS="${PROGRESS_EVERY_SECONDS:-30}"

# inputs_hash DIR LDFLAGS PACKAGE
inputs_hash() {
  local module_dir="$1" ldflags="$2" package="$3"
  # the build date stamped into a binary is not an input
  {
    go version
    declare -f inputs_hash show_progress build_module
    echo "${ldflags%-X *buildDate=*}"
    echo "$package"
    cat "$module_dir/go.mod" "$module_dir/go.sum"
    if [[ -f "$module_dir/main.go" ]]; then cat "$module_dir/main.go"; fi
  } | sha256sum | cut -d' ' -f1
}

# Reads `go build -v` output (one package name per line) and prints a progress line at most
# every PROGRESS_EVERY_SECONDS, so a long cold build visibly moves without flooding the log.
show_progress() {
  local name="$1" total="$2" started="$3" built=0 last_report=0 line now
  while IFS= read -r line; do
    case "$line" in
      *" "* | "#"*) echo "$line" ;; # compiler messages, not package names
      *) built=$((built + 1)) ;;
    esac
    now=$(date +%s)
    if ((now - last_report >= PROGRESS_EVERY_SECONDS)); then
      echo "[$name] still building: $built of ~$total packages compiled, $((now - started))s elapsed"
      last_report=$now
    fi
  done
  echo "[$name] compiled $built packages"
}

# build_module NAME DIR OUTPUT LDFLAGS [PACKAGE]: PACKAGE (default: the module's own main.go) is
# the main package to build, resolved through DIR's go.mod.
build_module() {
  local name="$1" module_dir="$2" output="$3" ldflags="$4" package="${5:-.}"
  local stamp="$KVTS_BIN/.$name.stamp" hash
  hash="$(inputs_hash "$module_dir" "$ldflags" "$package")"
  if [[ -x "$output" && -f "$stamp" && "$(cat "$stamp")" == "$hash" ]]; then
    echo "[$name] up to date: $output"
    return
  fi
  local started total
  started=$(date +%s)
  echo "[$name] downloading modules"
  (cd "$module_dir" && go mod download)
  total=$(cd "$module_dir" && go list -deps "$package" | wc -l)
  echo "[$name] building (up to $total packages with -p 2; a cold build takes many minutes, later ones reuse $GOCACHE)"
  (cd "$module_dir" && go build -trimpath -p 2 -v -ldflags "$ldflags" -o "$output.new" "$package" 2>&1) |
    show_progress "$name" "$total" "$started"
  # pipefail makes a failed go build fail the pipeline above; only a good binary gets here.
  mv -f "$output.new" "$output"
  echo "$hash" >"$stamp"
  echo "[$name] built $output in $(($(date +%s) - started))s"
}

kube_ldflags() {
  local release major minor pkg=k8s.io/component-base/version
  release="$(cd "$here/go/kube" && go list -m -f '{{.Version}}' k8s.io/kubernetes)"
  major="${release#v}" && major="${major%%.*}"
  minor="${release#v*.}" && minor="${minor%%.*}"
  # A module zip carries no git metadata: gitCommit is set empty rather than left at the source
  # tree's unexpanded "$Format:%H$" placeholder.
  echo "-s -w -X $pkg.gitVersion=$release -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor" \
    "-X $pkg.gitCommit= -X $pkg.gitTreeState=clean -X $pkg.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
}

GROUPS_ALL=(components kube etcd coredns local-path-provisioner cni-plugins multus)
GROUPS_WANTED=("${@:-${GROUPS_ALL[@]}}")
for group in "${GROUPS_WANTED[@]}"; do
  case " ${GROUPS_ALL[*]} " in
    *" $group "*) ;;
    *) echo "unknown binary group \"$group\" (known: ${GROUPS_ALL[*]})" >&2 && exit 2 ;;
  esac
done
wanted() { case " ${GROUPS_WANTED[*]} " in *" $1 "*) return 0 ;; *) return 1 ;; esac }

# first, being quick: a TypeScript error stops the build before the long Go builds
if wanted components; then
  repo="$(cd "$here/../.." && pwd)"
  if [[ ! -x "$repo/node_modules/.bin/tsx" ]]; then
    echo "[components] $repo/node_modules is missing: run \"npm ci\" (make does)" >&2
    exit 1
  fi
  "$repo/node_modules/.bin/tsx" "$repo/hack/bundle-components/main.ts"
fi

if wanted kube; then
  build_module kube "$here/go/kube" "$KVTS_BIN/kube" "$(kube_ldflags)"
  for component in "${KUBE_COMPONENTS[@]}"; do
    ln -sfn kube "$KVTS_BIN/$component"
  done
fi
if wanted etcd; then build_module etcd "$here/go/etcd" "$KVTS_BIN/etcd" "-s -w"; fi
# upstream's Makefile stamps coremain.GitCommit; a module zip has no commit, so it stays empty
if wanted coredns; then
  build_module coredns "$here/go/coredns" "$KVTS_BIN/coredns" "-s -w -X github.com/coredns/coredns/coremain.GitCommit="
fi
# upstream's scripts/build stamps main.VERSION with the release
if wanted local-path-provisioner; then
  build_module local-path-provisioner "$here/go/local-path-provisioner" "$KVTS_BIN/local-path-provisioner" \
    "-s -w -X main.VERSION=$(cd "$here/go/local-path-provisioner" && go list -m -f '{{.Version}}' github.com/rancher/local-path-provisioner)" \
    github.com/rancher/local-path-provisioner
fi
# upstream's release workflow stamps pkg/utils/buildversion.BuildVersion with the tag (plugins print it for VERSION)
if wanted cni-plugins; then
  mkdir -p "$KVTS_BIN/cni"
  cni_version="$(cd "$here/go/cni-plugins" && go list -m -f '{{.Version}}' github.com/containernetworking/plugins)"
  for plugin in "${CNI_PLUGINS[@]}"; do
    build_module "cni-${plugin##*/}" "$here/go/cni-plugins" "$KVTS_BIN/cni/${plugin##*/}" \
      "-s -w -X github.com/containernetworking/plugins/pkg/utils/buildversion.BuildVersion=$cni_version" \
      "github.com/containernetworking/plugins/plugins/$plugin"
  done
fi
# upstream's hack/build-go.sh stamps pkg/multus version, commit, tree state and release status (a release
# build: ",released"); a module zip has no commit, and the build date is left out so that it is no input
if wanted multus; then
  mkdir -p "$KVTS_BIN/cni"
  multus_pkg=gopkg.in/k8snetworkplumbingwg/multus-cni.v4
  multus_version="$(cd "$here/go/multus" && go list -m -f '{{.Version}}' "$multus_pkg")"
  build_module multus "$here/go/multus" "$KVTS_BIN/cni/multus" \
    "-s -w -X $multus_pkg/pkg/multus.version=$multus_version -X $multus_pkg/pkg/multus.commit= \
-X $multus_pkg/pkg/multus.gitTreeState=clean -X $multus_pkg/pkg/multus.releaseStatus=,released" \
    "$multus_pkg/cmd/multus"
fi
echo "binaries in $KVTS_BIN (components in dist/components): ${GROUPS_WANTED[*]}"
