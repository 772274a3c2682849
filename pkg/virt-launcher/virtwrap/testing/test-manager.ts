// A domain manager over the fake libvirt, with a preparation step that only records its calls.
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import { silentLogger } from "../../../controller/log.js";
import type { LauncherLayout } from "../../layout.js";
import { DEFAULT_LAYOUT } from "../../layout.js";
import type { LauncherConverterInputs } from "../converter-context.js";
import type { DiskModeProbes } from "../converter/disk-cache.js";
import type { DomainPreparation } from "../manager.js";
import { LibvirtDomainManager } from "../manager.js";
import { MetadataCache } from "../metadata-cache.js";
import { AsyncAgentStore } from "../agent-poller/agent-store.js";
import { FakeLibvirt } from "./fake-libvirt.js";

export class RecordingPreparation implements DomainPreparation {
  readonly steps: string[] = [];
  /** What converterInputs reports as Block claims. */
  blockVolumes = new Set<string>();

  converterInputs(_vmi: VirtualMachineInstance, allowEmulation: boolean): Promise<LauncherConverterInputs> {
    this.steps.push("inputs");
    return Promise.resolve({
      allowEmulation,
      hypervisorDeviceAvailable: false,
      containerDiskFormats: new Map(),
      interfaces: new Map(),
      blockVolumes: this.blockVolumes,
      options: null,
    });
  }

  beforeDefine(): Promise<void> {
    this.steps.push("beforeDefine");
    return Promise.resolve();
  }

  beforeStart(): Promise<void> {
    this.steps.push("beforeStart");
    return Promise.resolve();
  }
}

/** Direct I/O everywhere, no preallocated image; records the paths it was asked about. */
export function fakeDiskModeProbes(): DiskModeProbes & { probed: string[] } {
  const probed: string[] = [];
  const answer = (path: string): boolean => (probed.push(path), true);
  return {
    probed,
    directIO: { checkBlockDevice: answer, checkFile: answer },
    isPreAllocated: (path) => (probed.push(`allocation ${path}`), Promise.resolve(false)),
  };
}

/** `layout`: where the manager looks for hotplugged volumes and the rest (upstream's paths by default). */
export function testManager(layout: LauncherLayout = DEFAULT_LAYOUT) {
  const fake = new FakeLibvirt();
  const diskModeProbes = fakeDiskModeProbes();
  const preparation = new RecordingPreparation();
  const metadata = new MetadataCache();
  const agentStore = new AsyncAgentStore();
  const manager = new LibvirtDomainManager({
    connection: fake,
    preparation,
    metadata,
    layout,
    log: silentLogger,
    agentStore,
    diskModeProbes,
  });
  return { fake, preparation, metadata, manager, agentStore, diskModeProbes };
}
