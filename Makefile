# Two set-up commands for users: `make up` and `make test`. Every target installs what it needs.
SHELL := /bin/bash
.DEFAULT_GOAL := help

NPM_STAMP := node_modules/.install-stamp

.PHONY: help deps host-deps binaries cni-plugins guest images build generate lint typecheck test test-unit test-integration test-e2e up down bench-launcher-overhead bench-migration bench-admission bench-components bench-vm-boot bench-vmi-burst

help:
	@echo "make up     - a local cluster with KubeVirt installed and a demo VM"
	@echo "make test   - every test (installs what it needs)"
	@echo "make down   - stop and remove everything 'make up' made"

# npm ci only when the lockfile changed since the last install.
$(NPM_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

deps: $(NPM_STAMP)

# Debian packages (idempotent: installs only what is missing).
host-deps:
	bash deploy/local/install-deps.sh

# kube-apiserver & co. and etcd from upstream Go modules; cached, rebuilt only when pins change. And this suite's
# own component binaries, bundled into dist/components (hack/bundle-components): rebuilt only when a file they
# are made of changed; the node agents run component Pods from them, with no tsx at run time.
binaries: deps
	bash deploy/local/build-binaries.sh

# The reference CNI plugins (bridge, host-local, loopback, static) and multus alone: the runtime's tests set pod
# networks up with them.
cni-plugins:
	bash deploy/local/build-binaries.sh cni-plugins multus

# The test guest containerDisk (kernel + busybox from Debian packages); cached, rebuilt when its recipe changes.
guest: host-deps
	bash deploy/local/guest/build-test-guest.sh

# The five component images from their Dockerfiles with buildah, on a local Debian bookworm + Node base, and their
# root filesystems exported for the node agent (hack/build-images); cached: a rerun with nothing changed takes seconds.
# `make images ARGS="--registry quay.io/me --tag v1 --no-export"` names them for a registry.
images: deps host-deps
	npx tsx hack/build-images/main.ts $(ARGS)

build: deps
	npx tsc -p tsconfig.build.json

generate: deps
	npx tsx hack/generate.ts

lint: deps
	npx eslint .
	npx prettier --check .

typecheck: deps
	npx tsc -p tsconfig.json --noEmit

test-unit: deps host-deps cni-plugins
	npx vitest run --project unit --project unit-root

test-integration: deps host-deps binaries images
	npx vitest run --project integration

test-e2e: deps host-deps binaries guest images
	npx vitest run --project e2e

# Three vitest runs: the root tests' shared mounts must not meet a running cluster's, integration
# wants a cluster without KubeVirt, e2e installs it.
test: deps host-deps binaries guest images typecheck lint
	npx vitest run --project unit --project unit-root
	npx vitest run --project integration
	npx vitest run --project e2e

# Node size is declared: `make up NODE_CPUS=16 NODE_MEMORY=32Gi NODE_MAX_PODS=110` (default 8, 16Gi, 110).
# KubeVirt's Pods run from the images built from the Dockerfiles (make images); `make up COMPONENT_IMAGES=checkout`
# runs them from this checkout's bundles on the host's files instead (no image build after a change).
up: deps host-deps binaries guest $(if $(filter checkout,$(COMPONENT_IMAGES)),,images)
	NODE_CPUS=$(NODE_CPUS) NODE_MEMORY=$(NODE_MEMORY) NODE_MAX_PODS=$(NODE_MAX_PODS) COMPONENT_IMAGES=$(COMPONENT_IMAGES) npx tsx deploy/local/up.ts

down: deps
	npx tsx deploy/local/down.ts

# Benchmarks print figures against DESIGN.md's targets and assert nothing; they need `make up` running.
bench-launcher-overhead: deps
	npx tsx bench/launcher-overhead/main.ts

# Creates its own VM and live-migrates it between the two nodes: `make bench-migration ARGS="--runs 10"`.
bench-migration: deps
	npx tsx bench/migration/main.ts $(ARGS)

# virt-api's webhooks under an open-loop load of VM CREATE reviews, straight to one pod:
# `make bench-admission ARGS="--rate 400 --duration 30s --webhook validate"`.
bench-admission: deps
	npx tsx bench/admission/main.ts $(ARGS)

# Idle memory and CPU of each KubeVirt component process, and their peaks while a command runs:
# `make bench-components ARGS='--window 60s --during "make bench-admission"'`.
bench-components: deps
	npx tsx bench/components/main.ts $(ARGS)

# kubectl apply -> the guest's serial console answers, against bare QEMU booting the same guest, in a
# namespace of its own (bench-vm-boot, deleted afterwards): `make bench-vm-boot ARGS="--runs 5"`.
bench-vm-boot: deps
	npx tsx bench/vm-boot/main.ts $(ARGS)

# 100 VMIs created 100 ms apart, as upstream's sig-performance burst: create -> Scheduled / Running p50 / p95 / max,
# apiserver requests per VMI, KubeVirt's components' CPU and peak RSS; guests start paused unless --boot (slow under
# TCG); in a namespace of its own (bench-vmi-burst, deleted afterwards): `make bench-vmi-burst ARGS="--count 50"`.
bench-vmi-burst: deps
	npx tsx bench/vmi-burst/main.ts $(ARGS)
