import type { VirtualMachineInstance } from "../../pkg/api/generated/v1.js";
import { TEST_GUEST_IMAGE } from "../../test/e2e/test-guest-vm.js";
import { OWNER_LABEL, ownedManifest } from "../common/bench-objects.js";

// The burst's VMIs: the e2e suite's small VMI (test/e2e/faults.test.ts): the test guest's containerDisk as
// a virtio disk, 96Mi of guest memory, KubeVirt's default pod network, a 5 s grace period. Without --boot
// they carry upstream's spec.startStrategy: Paused, so libvirt starts each domain with its vCPUs paused.

export const OWNER = "vmi-burst";
/** Every VMI of the burst carries it: they are listed, watched and deleted together by it. */
export const SELECTOR = `${OWNER_LABEL}=${OWNER}`;

/** burst-0001 ... burst-0100: as wide as the largest number, four digits at least, so that they sort. */
export function burstNames(count: number): string[] {
  const width = Math.max(4, String(count).length);
  return Array.from({ length: count }, (_, index) => `burst-${String(index + 1).padStart(width, "0")}`);
}

export function burstVMI(name: string, namespace: string, boot: boolean): VirtualMachineInstance {
  const vmi = {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: { name },
    spec: {
      ...(boot ? {} : { startStrategy: "Paused" }),
      domain: {
        devices: { disks: [{ name: "containerdisk", disk: { bus: "virtio" } }] },
        memory: { guest: "96Mi" },
      },
      terminationGracePeriodSeconds: 5,
      volumes: [{ name: "containerdisk", containerDisk: { image: TEST_GUEST_IMAGE } }],
    },
  } as VirtualMachineInstance;
  return ownedManifest(vmi, OWNER, namespace);
}

/** One line for the printed output. */
export const VMI_DESCRIPTION =
  `VMI: containerDisk ${TEST_GUEST_IMAGE} as a virtio disk, memory.guest 96Mi, default pod network, ` +
  `terminationGracePeriodSeconds 5 (the e2e suite's small VMI), labelled ${SELECTOR}`;
