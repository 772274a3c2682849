// A typed, read-only view of the cluster configuration, as upstream's virtconfig.ClusterConfig
// offers it to the webhooks and controllers: the defaults overlaid with the active KubeVirt CR's
// spec.configuration. An invalid configuration is refused as a whole and the previous valid one
// (by default: the built-in defaults) stays in force, as upstream does.
import { KubeVirtConfigurationSchema } from "../api/generated/v1.js";
import type { KubeVirt, KubeVirtConfiguration } from "../api/generated/v1.js";
import { Quantity } from "../defaults/quantity.js";
import {
  defaultClusterConfiguration,
  DefaultQGSSocketPath,
  DefaultTDXAttestationEnforced,
} from "./defaults.js";
import { FeatureGate, isFeatureGateEnabled } from "./featuregate/feature-gates.js";
import { overlayConfiguration } from "./merge-configuration.js";

const VALID_PULL_POLICIES = new Set(["", "Always", "Never", "IfNotPresent"]);
const VALID_NETWORK_INTERFACES = new Set(["", "bridge", "slirp", "masquerade"]);

/** Quantity fields of the configuration: parsed (refusing the whole config if bad) and written canonically. */
const QUANTITY_FIELDS: ReadonlyArray<
  readonly [parent: (c: KubeVirtConfiguration) => object | undefined, key: string]
> = [
  [(c) => c, "cpuRequest"],
  [(c) => c.migrations, "bandwidthPerMigration"],
  [(c) => c.liveUpdateConfiguration, "maxGuest"],
  [(c) => c.developerConfiguration?.diskVerification, "memoryLimit"],
];

/** Upstream's validateConfig; undefined when valid, else its message. */
function validateConfiguration(config: KubeVirtConfiguration): string | undefined {
  const pullPolicy = config.imagePullPolicy ?? "";
  if (!VALID_PULL_POLICIES.has(pullPolicy)) return `invalid dev.imagePullPolicy in config: ${pullPolicy}`;
  const developer = config.developerConfiguration ?? {};
  const overcommit = developer.memoryOvercommit ?? 0;
  if (overcommit <= 0) return `invalid memoryOvercommit in ConfigMap: ${overcommit}`;
  const ratio = developer.cpuAllocationRatio ?? 0;
  if (ratio <= 0) return `invalid cpu allocation ratio in ConfigMap: ${ratio}`;
  const toleration = developer.pvcTolerateLessSpaceUpToPercent ?? 0;
  if (toleration < 0 || toleration > 100) return `invalid lessPVCSpaceToleration in ConfigMap: ${toleration}`;
  const networkInterface = config.network?.defaultNetworkInterface ?? "";
  if (!VALID_NETWORK_INTERFACES.has(networkInterface)) {
    return `invalid default-network-interface in config: ${networkInterface}`;
  }
  return undefined;
}

/** Rewrites quantity fields in place as Go would marshal them; returns an error text for unparsable ones. */
function normalizeQuantities(config: KubeVirtConfiguration): string | undefined {
  for (const [parentOf, key] of QUANTITY_FIELDS) {
    const parent = parentOf(config) as Record<string, unknown> | undefined;
    const raw = parent?.[key];
    if (parent === undefined || raw === undefined || raw === null) continue;
    const quantity = Quantity.tryParse(raw);
    if (quantity === undefined) return `invalid quantity in ${key}: ${String(raw)}`;
    parent[key] = quantity.toString();
  }
  return undefined;
}

/** Upstream's GetConfigFromKubeVirtCR: the KubeVirt CR that is deployed (has a phase) and not being deleted. */
export function selectActiveKubeVirt(kubevirts: readonly KubeVirt[]): KubeVirt | undefined {
  let active: KubeVirt | undefined;
  for (const kv of kubevirts) {
    if (kv.metadata?.deletionTimestamp === undefined && (kv.status?.phase ?? "") !== "") active = kv;
  }
  return active;
}

export class ClusterConfig {
  private constructor(
    private readonly config: KubeVirtConfiguration,
    private readonly kubeVirt: KubeVirt | undefined,
    /** Why the KubeVirt CR's configuration was refused, when it was. */
    readonly invalidReason?: string,
  ) {}

  /** The configuration of a cluster without a (deployed) KubeVirt CR. */
  static defaults(): ClusterConfig {
    return new ClusterConfig(defaultClusterConfiguration(), undefined);
  }

  /**
   * The configuration a KubeVirt CR asks for. When it is not valid, `fallback` (the last valid view,
   * the defaults if none) stays in force and `invalidReason` says why.
   */
  static fromKubeVirt(kubeVirt: KubeVirt | undefined, fallback?: ClusterConfig): ClusterConfig {
    if (kubeVirt === undefined) return ClusterConfig.defaults();
    const previous = fallback ?? ClusterConfig.defaults();
    const parsed = KubeVirtConfigurationSchema.safeParse(kubeVirt.spec?.configuration ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.join(".") ?? "";
      return new ClusterConfig(
        previous.config,
        previous.kubeVirt,
        `invalid configuration: ${where}: ${issue?.message}`,
      );
    }
    const config = overlayConfiguration(defaultClusterConfiguration(), parsed.data);
    // The operator reports the architecture it found on the nodes; that, not ours, is the default.
    config.architectureConfiguration = {
      ...config.architectureConfiguration,
      defaultArchitecture: kubeVirt.status?.defaultArchitecture ?? "",
    };
    const problem = normalizeQuantities(config) ?? validateConfiguration(config);
    if (problem !== undefined) return new ClusterConfig(previous.config, previous.kubeVirt, problem);
    return new ClusterConfig(config, kubeVirt);
  }

  /** The effective configuration (a copy). */
  getConfig(): KubeVirtConfiguration {
    return structuredClone(this.config);
  }

  /** Annotations of the KubeVirt CR in force (some alpha knobs live there). */
  getKubeVirtAnnotations(): Readonly<Record<string, string>> {
    return this.kubeVirt?.metadata?.annotations ?? {};
  }

  isFeatureGateEnabled(gate: string): boolean {
    return isFeatureGateEnabled(gate, this.config.developerConfiguration);
  }

  rootEnabled(): boolean {
    return this.isFeatureGateEnabled(FeatureGate.Root);
  }

  alignCPUsEnabled(): boolean {
    return this.isFeatureGateEnabled(FeatureGate.AlignCPUs);
  }

  getMachineType(arch: string | undefined): string {
    if (this.config.machineType) return this.config.machineType;
    const archConfig = this.config.architectureConfiguration;
    switch (arch) {
      case "arm64":
        return archConfig?.arm64?.machineType ?? "";
      case "s390x":
        return archConfig?.s390x?.machineType ?? "";
      default:
        return archConfig?.amd64?.machineType ?? "";
    }
  }

  getEmulatedMachines(arch: string | undefined): string[] {
    if (this.config.emulatedMachines) return [...this.config.emulatedMachines];
    const archConfig = this.config.architectureConfiguration;
    const specific =
      arch === "arm64" ? archConfig?.arm64 : arch === "s390x" ? archConfig?.s390x : archConfig?.amd64;
    return [...(specific?.emulatedMachines ?? [])];
  }

  getOVMFPath(arch: string | undefined): string {
    if (this.config.ovmfPath) return this.config.ovmfPath;
    const archConfig = this.config.architectureConfiguration;
    const specific =
      arch === "arm64" ? archConfig?.arm64 : arch === "s390x" ? archConfig?.s390x : archConfig?.amd64;
    return specific?.ovmfPath ?? "";
  }

  getDefaultArchitecture(): string {
    return this.config.architectureConfiguration?.defaultArchitecture ?? "";
  }

  getCPUModel(): string {
    return this.config.cpuModel ?? "";
  }

  getCPURequest(): Quantity | undefined {
    return Quantity.tryParse(this.config.cpuRequest);
  }

  getImagePullPolicy(): string {
    return this.config.imagePullPolicy ?? "";
  }

  getDefaultNetworkInterface(): string {
    return this.config.network?.defaultNetworkInterface ?? "";
  }

  isBridgeInterfaceOnPodNetworkEnabled(): boolean {
    return this.config.network?.permitBridgeInterfaceOnPodNetwork ?? false;
  }

  getEvictionStrategy(): string | undefined {
    return this.config.evictionStrategy;
  }

  allowEmulation(): boolean {
    return this.config.developerConfiguration?.useEmulation ?? false;
  }

  getMemoryOvercommit(): number {
    return this.config.developerConfiguration?.memoryOvercommit ?? 0;
  }

  getCPUAllocationRatio(): number {
    return this.config.developerConfiguration?.cpuAllocationRatio ?? 0;
  }

  /** How many percent less space than requested a Filesystem PVC may offer for its disk.img. */
  getLessPVCSpaceToleration(): number {
    return this.config.developerConfiguration?.pvcTolerateLessSpaceUpToPercent ?? 0;
  }

  /** Bytes of a Filesystem PVC kept free when its disk.img is sized to the space left. */
  getMinimumReservePVCBytes(): number {
    return this.config.developerConfiguration?.minimumReservePVCBytes ?? 0;
  }

  getMemBalloonStatsPeriod(): number {
    return this.config.memBalloonStatsPeriod ?? 0;
  }

  getSupportedAgentVersions(): string[] {
    return [...(this.config.supportedGuestAgentVersions ?? [])];
  }

  getMaximumCpuSockets(): number {
    return this.config.liveUpdateConfiguration?.maxCpuSockets ?? 0;
  }

  getMaximumGuestMemory(): Quantity | undefined {
    return Quantity.tryParse(this.config.liveUpdateConfiguration?.maxGuest);
  }

  getMaxHotplugRatio(): number {
    const liveUpdate = this.config.liveUpdateConfiguration;
    return liveUpdate === undefined ? 1 : (liveUpdate.maxHotplugRatio ?? 0);
  }

  isVMRolloutStrategyLiveUpdate(): boolean {
    const strategy = this.config.vmRolloutStrategy;
    return strategy === undefined || strategy === "LiveUpdate";
  }

  requireQGS(): boolean {
    return this.config.confidentialCompute?.tdx?.attestation?.enforced ?? DefaultTDXAttestationEnforced;
  }

  getQGSSocketPath(): string {
    return this.config.confidentialCompute?.tdx?.attestation?.qgsSocketPath ?? DefaultQGSSocketPath;
  }
}
