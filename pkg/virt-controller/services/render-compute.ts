// The `compute` container: virt-launcher-monitor from the launcher image, with the VMI's resources,
// the shared directories, the ports of its interfaces, its probes (run through virt-probe inside the
// launcher), and the log switches the VMI's labels or the cluster ask for.
import type { V1ContainerPort, V1EnvVar, V1Probe } from "@kubernetes/client-node";
import type { Probe, VirtualMachineInstance } from "../../api/generated/v1.js";
import { setProbeDefaults } from "../../defaults/object-defaults.js";
import { ComputeContainerName } from "../../util/constants.js";
import { renderContainerSpec } from "./container-spec.js";
import { LauncherMonitorCommand } from "./launcher-args.js";
import type { Container, ResourceRequirements, VolumeMount } from "../../api/core/v1/pod.js";
import type { RenderContext } from "./render-context.js";

/** libvirt needs about ten seconds to start, so probes wait that much longer than the user asked. */
export const LibvirtStartupDelaySeconds = 10;
const DefaultVirtLauncherLogVerbosity = 2;
/** Above this verbosity libvirt's and virtiofsd's debug logs are switched on too. */
const ExtensiveLogVerbosityThreshold = 5;

function containerPorts(vmi: VirtualMachineInstance): V1ContainerPort[] {
  return (vmi.spec.domain.devices.interfaces ?? []).flatMap((iface) =>
    (iface.ports ?? []).map((port) => {
      const containerPort: V1ContainerPort = { protocol: port.protocol || "TCP", containerPort: port.port };
      if (port.name) containerPort.name = port.name;
      return containerPort;
    }),
  );
}

/** The domain name virt-probe asks the launcher about: `<namespace>_<name>`. */
function domainName(vmi: VirtualMachineInstance): string {
  return `${vmi.metadata?.namespace ?? ""}_${vmi.metadata?.name ?? ""}`;
}

/** The virt-probe command an exec or guest-agent probe runs in the launcher; none for other probes. */
function virtProbeCommand(vmi: VirtualMachineInstance, probe: Probe): string[] | undefined {
  const base = [
    "virt-probe",
    "--domainName",
    domainName(vmi),
    "--timeoutSeconds",
    String(probe.timeoutSeconds),
  ];
  if (probe.guestAgentPing !== undefined) return [...base, "--guestAgentPing"];
  const [program, ...programArgs] = probe.exec?.command ?? [];
  if (program === undefined || program === "virt-probe") return undefined;
  return [...base, "--command", program, "--", ...programArgs];
}

/** A VMI probe as a Pod probe, delayed until libvirt is up. */
function podProbe(vmi: VirtualMachineInstance, vmiProbe: Probe): V1Probe {
  const probe = structuredClone(vmiProbe);
  setProbeDefaults(probe);
  const rendered: V1Probe = {
    initialDelaySeconds: (probe.initialDelaySeconds ?? 0) + LibvirtStartupDelaySeconds,
    timeoutSeconds: probe.timeoutSeconds,
    periodSeconds: probe.periodSeconds,
    successThreshold: probe.successThreshold,
    failureThreshold: probe.failureThreshold,
  };
  if (probe.exec) rendered.exec = probe.exec;
  // Both probe models come from the same Kubernetes definitions.
  if (probe.httpGet) rendered.httpGet = probe.httpGet as V1Probe["httpGet"];
  if (probe.tcpSocket) rendered.tcpSocket = probe.tcpSocket as V1Probe["tcpSocket"];
  const wrapped = virtProbeCommand(vmi, probe);
  if (wrapped) {
    rendered.exec = { command: wrapped };
    // virt-probe's own round trip to the launcher needs a second more.
    rendered.timeoutSeconds = (probe.timeoutSeconds ?? 1) + 1;
  }
  return rendered;
}

/** The launcher's log verbosity: the VMI's `logVerbosity` label, else the cluster's. */
export function launcherVerbosity(context: RenderContext): { value: number; explicit: boolean } {
  const label = context.vmi.metadata?.labels?.["logVerbosity"];
  if (label !== undefined) return { value: Number.parseInt(label, 10), explicit: true };
  const cluster = context.config.getConfig().developerConfiguration?.logVerbosity?.virtLauncher;
  const value = cluster ?? DefaultVirtLauncherLogVerbosity;
  return { value, explicit: value !== DefaultVirtLauncherLogVerbosity };
}

function labelIsTrue(vmi: VirtualMachineInstance, label: string): boolean {
  return vmi.metadata?.labels?.[label]?.toLowerCase() === "true";
}

function computeEnvironment(context: RenderContext): V1EnvVar[] {
  const { vmi } = context;
  const verbosity = launcherVerbosity(context);
  const env: V1EnvVar[] = [];
  if (verbosity.explicit) {
    env.push({
      name: "VIRT_LAUNCHER_LOG_VERBOSITY",
      value: vmi.metadata?.labels?.["logVerbosity"] ?? String(verbosity.value),
    });
  }
  const extensive = verbosity.value > ExtensiveLogVerbosityThreshold;
  if (labelIsTrue(vmi, "debugLogs") || extensive) env.push({ name: "LIBVIRT_DEBUG_LOGS", value: "1" });
  if (labelIsTrue(vmi, "virtiofsdDebugLogs") || extensive)
    env.push({ name: "VIRTIOFSD_DEBUG_LOGS", value: "1" });
  env.push({ name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } });
  return env;
}

export interface ComputeInputs {
  args: string[];
  resources: ResourceRequirements;
  mounts: VolumeMount[];
}

export function renderComputeContainer(context: RenderContext, inputs: ComputeInputs): Container {
  const { vmi } = context;
  // NET_BIND_SERVICE is set on the launcher binary; a root launcher also pins vCPUs (SYS_NICE).
  const add = context.nonRoot ? ["NET_BIND_SERVICE"] : ["NET_BIND_SERVICE", "SYS_NICE"];
  return renderContainerSpec({
    name: ComputeContainerName,
    image: context.settings.launcherImage,
    imagePullPolicy: context.config.getImagePullPolicy(),
    userId: context.userId,
    capabilities: context.nonRoot ? { add, drop: ["ALL"] } : { add },
    command: [LauncherMonitorCommand],
    args: inputs.args,
    volumeMounts: inputs.mounts,
    resources: inputs.resources,
    ports: containerPorts(vmi),
    env: computeEnvironment(context),
    livenessProbe: vmi.spec.livenessProbe ? podProbe(vmi, vmi.spec.livenessProbe) : undefined,
    readinessProbe: vmi.spec.readinessProbe ? podProbe(vmi, vmi.spec.readinessProbe) : undefined,
  });
}
