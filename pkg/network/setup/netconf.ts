import { rm } from "node:fs/promises";
import { MigrationTransportUnix } from "../../util/constants.js";
import { join } from "node:path";
import type { Interface as VMIInterface, VirtualMachineInstance } from "../../api/generated/v1.js";
import type { Logger } from "../../controller/log.js";
import { resolveInRoot } from "../../safepath/relative-root.js";
import { NonRootUID, RootUser } from "../../util/constants.js";
import { isNonRoot } from "../../vmitrait/vmitrait.js";
import { VIRT_PRIVATE_DIR } from "../cache/podinterface.js";
import { NsenterExec, type NetnsExec } from "../driver/netns-exec.js";
import { INJECT_SIDECAR_ANNOTATION } from "../istio/ports.js";
import { NetPod } from "./netpod/netpod.js";
import { errorMessage } from "../../util/error-message.js";

// virt-handler's entry to the pod network setup of a VMI (upstream pkg/network/setup/netconf.go):
// the first phase, run from outside the launcher pod, for the interfaces the VMI starts with.

/** Where the launcher pod is, as the isolation detector found it. */
export interface LauncherNamespaces {
  netnsPath: string;
  rootFs: string;
}

export interface NetConfOptions {
  /** virt-handler's private directory (`--kubevirt-private-dir`). */
  privateDir: string;
  logger: Logger;
  /** How commands reach the pod's namespace; nsenter by default. */
  exec?: (netnsPath: string) => NetnsExec;
}

/** The interfaces a VMI starts with (upstream FilterNetsForVMStartup): all but those marked absent. */
export function startupInterfaces(vmi: VirtualMachineInstance): VMIInterface[] {
  return (vmi.spec.domain.devices.interfaces ?? []).filter((iface) => iface.state !== "absent");
}

export class NetConf {
  constructor(private readonly options: NetConfOptions) {}

  /** Idempotent: a second run over a prepared pod finds everything in place and changes nothing. */
  async setup(vmi: VirtualMachineInstance, launcher: LauncherNamespaces): Promise<void> {
    const interfaces = startupInterfaces(vmi);
    if (interfaces.length === 0) return;
    const exec = this.options.exec ?? ((netnsPath: string) => new NsenterExec(netnsPath));
    const privateDirPath = await resolveInRoot(launcher.rootFs, VIRT_PRIVATE_DIR);
    const netPod = new NetPod({
      exec: exec(launcher.netnsPath),
      vmiUID: vmi.metadata?.uid ?? "",
      vmiInterfaces: interfaces,
      vmiNetworks: vmi.spec.networks ?? [],
      vmiInterfaceStatuses: vmi.status?.interfaces ?? [],
      ownerId: isNonRoot(vmi) ? NonRootUID : RootUser,
      launcherRootFs: launcher.rootFs,
      launcherPrivateDir: privateDirPath.slice(launcher.rootFs.length),
      privateDir: this.options.privateDir,
      masquerade: {
        istioEnabled: vmi.metadata?.annotations?.[INJECT_SIDECAR_ANNOTATION]?.toLowerCase() === "true",
        // Upstream keeps the legacy migration ports out of the NAT unless migrations use unix sockets.
        legacyMigrationPorts: vmi.status?.migrationTransport !== MigrationTransportUnix,
      },
      log: this.options.logger,
    });
    try {
      await netPod.setup();
    } catch (error) {
      throw new Error(`setup failed, err: ${errorMessage(error)}`, {
        cause: error,
      });
    }
  }

  /** Forgets a VMI that is gone: its pod interface cache in the handler's private dir. */
  async teardown(vmi: VirtualMachineInstance): Promise<void> {
    const uid = vmi.metadata?.uid;
    if (!uid || uid.includes("/") || uid === "..") return;
    await rm(join(this.options.privateDir, "network-info-cache", uid), { recursive: true, force: true });
  }
}
