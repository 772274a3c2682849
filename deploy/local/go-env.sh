# shellcheck shell=bash
# Sourced by the build scripts: where the Go toolchain keeps its caches and where the
# built binaries go. Everything lives outside the checkout so a fresh clone reuses it.
KVTS_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/kubevirt-ts"
KVTS_BIN="$KVTS_CACHE/bin"
export GOCACHE="$KVTS_CACHE/go-build"
export GOMODCACHE="$KVTS_CACHE/go-mod"
# Use the local Go even if a module asks for a newer toolchain; never download one.
export GOTOOLCHAIN=local
export GOFLAGS="-buildvcs=false"
export CGO_ENABLED=0
mkdir -p "$KVTS_BIN" "$GOCACHE" "$GOMODCACHE"
