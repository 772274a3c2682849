// Reliability: killing virt-handler while a VM runs leaves the guest running — the same QEMU process —
// and the VMI Running; the new handler re-attaches to the launcher and the console still answers.
import { afterAll, describe, expect, it } from "vitest";
import {
  ConsoleSession,
  applyYAML,
  componentPods,
  eventually,
  jsonpath,
  kubectl,
  qemuPids,
  kubectlOk,
} from "./harness.js";
import { CLUSTER_ALONE_WAIT_MS, takeTheClusterAlone } from "./cluster-lock.js";

const VM = "e2e-restart";

afterAll(async () => {
  await kubectl(["delete", "vm", VM, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
});

describe("virt-handler restarted under a running VM", () => {
  it(
    "leaves the guest running and the VMI Running",
    async () => {
      await applyYAML(`
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata: { name: ${VM} }
spec:
  runStrategy: Always
  template:
    spec:
      domain:
        devices:
          disks: [{ name: containerdisk, disk: { bus: virtio } }]
          interfaces: [{ name: default, masquerade: {} }]
        memory: { guest: 128Mi }
      networks: [{ name: default, pod: {} }]
      volumes:
        - name: containerdisk
          containerDisk: { image: kubevirt-ts/test-guest:latest }
`);
      await eventually(
        async () => expect(await jsonpath("vmi", VM, "{.status.phase}")).toBe("Running"),
        240_000,
        1_000,
      );
      const before = await qemuPids(VM);
      expect(before).toHaveLength(1);
      const node = await jsonpath("vmi", VM, "{.status.nodeName}");
      const handlerOn = () => componentPods("virt-handler", { node });
      const oldHandler = await handlerOn();

      // Other files' VMs on that node would lose their handler too.
      await takeTheClusterAlone();
      await kubectlOk(["-n", "kubevirt", "delete", "pod", oldHandler, "--wait=true"]);
      await eventually(
        async () => {
          const name = await handlerOn();
          expect(name).not.toBe(oldHandler);
          expect(
            await kubectlOk([
              "-n",
              "kubevirt",
              "get",
              "pod",
              name,
              "-o",
              "jsonpath={.status.containerStatuses[0].ready}",
            ]),
          ).toBe("true");
        },
        180_000,
        2_000,
      );

      expect(await qemuPids(VM)).toEqual(before);
      expect(await jsonpath("vmi", VM, "{.status.phase}")).toBe("Running");
      const console = new ConsoleSession(VM);
      try {
        await console.expect(/root@[\w-]+:~# /, 120_000, { pokeMs: 3_000 });
      } finally {
        await console.close();
      }
      expect(await jsonpath("vmi", VM, "{.status.phase}")).toBe("Running");
    },
    300_000 + CLUSTER_ALONE_WAIT_MS,
  );
});
