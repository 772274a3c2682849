// The VirtualMachine most end-to-end tests start: the test guest as a containerDisk, 128Mi, a short grace
// period, and only what a test asks for on top (run strategy, image, pod network binding, annotations ...).
import type { VirtualMachine, VirtualMachineInstance } from "../../pkg/api/generated/v1.js";

export const TEST_GUEST_IMAGE = "kubevirt-ts/test-guest:latest";

export interface TestGuestVMOptions {
  runStrategy?: string;
  image?: string;
  /** An interface on the pod network with this binding; none declared means KubeVirt's default. */
  podNetwork?: "masquerade" | "bridge";
  /** Template annotations and labels (the launcher Pod gets them). */
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
  cpuRequest?: string;
  evictionStrategy?: string;
  /** The VMI's nodeSelector (its launcher Pods get it, migration targets included). */
  nodeSelector?: Record<string, string>;
  /** A cloudInitNoCloud disk with this user-data. */
  cloudInitUserData?: string;
}

export function testGuestVM(name: string, options: TestGuestVMOptions = {}): VirtualMachine {
  const network = options.podNetwork;
  const cloudInit = options.cloudInitUserData;
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachine",
    metadata: { name },
    spec: {
      runStrategy: options.runStrategy ?? "Always",
      template: {
        metadata: {
          ...(options.annotations ? { annotations: options.annotations } : {}),
          ...(options.labels ? { labels: options.labels } : {}),
        },
        spec: {
          domain: {
            devices: {
              disks: [
                { name: "containerdisk", disk: { bus: "virtio" } },
                ...(cloudInit ? [{ name: "cloudinitdisk", disk: { bus: "virtio" } }] : []),
              ],
              ...(network ? { interfaces: [{ name: "default", [network]: {} }] } : {}),
            },
            memory: { guest: "128Mi" },
            ...(options.cpuRequest ? { resources: { requests: { cpu: options.cpuRequest } } } : {}),
          },
          ...(network ? { networks: [{ name: "default", pod: {} }] } : {}),
          ...(options.evictionStrategy ? { evictionStrategy: options.evictionStrategy } : {}),
          ...(options.nodeSelector ? { nodeSelector: options.nodeSelector } : {}),
          terminationGracePeriodSeconds: 5,
          volumes: [
            { name: "containerdisk", containerDisk: { image: options.image ?? TEST_GUEST_IMAGE } },
            ...(cloudInit ? [{ name: "cloudinitdisk", cloudInitNoCloud: { userData: cloudInit } }] : []),
          ],
        },
      },
    },
  } as VirtualMachine;
}

/** A bare VMI of the test guest: 96Mi, a virtio containerDisk, a short grace period; started paused if asked. */
export function testGuestVMI(
  name: string,
  options: { startStrategy?: "Paused" } = {},
): VirtualMachineInstance {
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: { name },
    spec: {
      ...(options.startStrategy ? { startStrategy: options.startStrategy } : {}),
      domain: {
        devices: { disks: [{ name: "containerdisk", disk: { bus: "virtio" } }] },
        memory: { guest: "96Mi" },
      },
      terminationGracePeriodSeconds: 5,
      volumes: [{ name: "containerdisk", containerDisk: { image: TEST_GUEST_IMAGE } }],
    },
  };
}
