// The `guest-console-log` sidecar (upstream's serialconsolelog.go): a restartable init container tailing
// the guest's first serial port log into the Pod's log, unless the VMI or the cluster switch it off.
import type { V1Container } from "@kubernetes/client-node";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import type { ClusterConfig } from "../../virt-config/cluster-config.js";
import { NonRootUID, VirtPrivateDir } from "../../util/constants.js";
import { supportContainerList, type RenderContext } from "./render-context.js";
import { isCPUDedicated, wantsGuaranteedQoS } from "../../vmitrait/vmitrait.js";

const SerialPort = 0;

function serialConsoleLogEnabled(vmi: VirtualMachineInstance, config: ClusterConfig): boolean {
  const devices = vmi.spec.domain.devices;
  if (devices.autoattachSerialConsole === false) return false;
  if (devices.logSerialConsole !== undefined) return devices.logSerialConsole;
  return config.getConfig().virtualMachineOptions?.disableSerialConsoleLog === undefined;
}

/** `verbosity` is the launcher's log verbosity, passed on to virt-tail. */
export function serialConsoleLogContainer(
  context: RenderContext,
  verbosity: number,
): V1Container | undefined {
  const { vmi, config } = context;
  if (!serialConsoleLogEnabled(vmi, config)) return undefined;
  const requests = supportContainerList(config, "guest-console-log", "requests", {
    cpu: "5m",
    memory: "35M",
  });
  const limits = supportContainerList(config, "guest-console-log", "limits", { cpu: "15m", memory: "60M" });
  const guaranteed = isCPUDedicated(vmi) || wantsGuaranteedQoS(vmi);
  const logFile = `${VirtPrivateDir}/${vmi.metadata?.uid ?? ""}/virt-serial${SerialPort}-log`;
  const container: V1Container = {
    name: "guest-console-log",
    image: context.settings.launcherImage,
    command: ["/usr/bin/virt-tail"],
    args: ["--logfile", logFile],
    volumeMounts: [{ name: "private", mountPath: VirtPrivateDir, readOnly: true }],
    resources: { limits, requests: guaranteed ? { ...limits } : requests },
    securityContext: {
      runAsUser: NonRootUID,
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
    },
    restartPolicy: "Always",
    env: [{ name: "VIRT_LAUNCHER_LOG_VERBOSITY", value: String(verbosity) }],
  };
  const pullPolicy = config.getImagePullPolicy();
  if (pullPolicy) container.imagePullPolicy = pullPolicy;
  return container;
}
