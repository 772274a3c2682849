// The node agent's pod runtime: what the Kubernetes side (../*.ts) and `make up`/`make down` use.

export { NodeRuntime } from "./node-runtime.js";
export type { NodeRuntimeConfig } from "./node-runtime.js";
export { ClusterNetwork } from "./cluster-network.js";
export { LOCAL_CLUSTER_NETWORK } from "./cluster-network-config.js";
export type { ClusterNetworkConfig } from "./cluster-network-config.js";
export { NodeLayout } from "./node-layout.js";
export { ImageStore, IMAGE_RULES, COMPONENT_BINARIES, defaultCacheDir } from "./image-store.js";
export { ContainerStartError } from "./container-command.js";
export { VolumeSetupError } from "./volumes.js";
