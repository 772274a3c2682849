// The walking skeleton end to end: a VM with 2 vCPUs, a containerDisk, cloud-init and the pod network
// is started with virtctl, boots under TCG in its launcher Pod, gets an IP, answers on its serial console
// through the aggregated API, and leaves nothing behind when virtctl stops it — once per binding.
import { afterAll, describe, expect, it } from "vitest";
import { ConsoleSession, applyYAML, eventually, jsonpath, kubectl, kubectlOk, virtctl } from "./harness.js";

const BOOT_TIMEOUT_MS = 240_000;

function vmYAML(name: string, binding: "masquerade" | "bridge"): string {
  return `
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: ${name}
spec:
  runStrategy: Halted
  template:
    metadata:
      labels:
        kubevirt.io/vm: ${name}
    spec:
      domain:
        cpu:
          cores: 2
        devices:
          disks:
            - name: containerdisk
              disk: { bus: virtio }
            - name: cloudinitdisk
              disk: { bus: virtio }
          interfaces:
            - name: default
              ${binding}: {}
        memory:
          guest: 128Mi
      networks:
        - name: default
          pod: {}
      terminationGracePeriodSeconds: 10
      volumes:
        - name: containerdisk
          containerDisk:
            image: kubevirt-ts/test-guest:latest
        - name: cloudinitdisk
          cloudInitNoCloud:
            userData: |
              #cloud-config
              hostname: ${name}-guest
              runcmd:
                - echo "cloud-init ran in ${name}"
`;
}

const created: string[] = [];
afterAll(async () => {
  for (const name of created)
    await kubectl(["delete", "vm", name, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
});

describe.each(["masquerade", "bridge"] as const)("a VM on the pod network with the %s binding", (binding) => {
  const name = `e2e-${binding}`;

  it("starts with virtctl, runs with an IP, answers on its serial console, and stops leaving nothing", async () => {
    created.push(name);
    await applyYAML(vmYAML(name, binding));
    await eventually(async () =>
      expect(await jsonpath("vm", name, "{.status.printableStatus}")).toBe("Stopped"),
    );

    const start = await virtctl(["start", name]);
    expect(start.stderr).toBe("");
    expect(start.stdout.trim()).toBe(`VM ${name} was scheduled to start`);

    await eventually(
      async () => expect(await jsonpath("vmi", name, "{.status.phase}")).toBe("Running"),
      BOOT_TIMEOUT_MS,
      1_000,
    );
    const vmi = JSON.parse(await kubectlOk(["get", "vmi", name, "-o", "json"])) as {
      status: { interfaces?: { ipAddress?: string; name?: string }[]; nodeName?: string };
      spec: { domain: { cpu: { cores: number } } };
    };
    expect(vmi.spec.domain.cpu.cores).toBe(2);
    const ip = await eventually(
      async () => {
        const address = await jsonpath("vmi", name, "{.status.interfaces[0].ipAddress}");
        expect(address).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
        return address;
      },
      60_000,
      1_000,
    );
    // The pod's IP: the guest's own with the bridge binding, the launcher pod's with masquerade.
    const podIP = (
      await kubectlOk([
        "get",
        "pods",
        "-l",
        `kubevirt.io/created-by=${await jsonpath("vmi", name, "{.metadata.uid}")}`,
        "-o",
        "jsonpath={.items[0].status.podIP}",
      ])
    ).trim();
    expect(ip).toBe(podIP);
    await eventually(
      async () => expect(await jsonpath("vm", name, "{.status.printableStatus}")).toBe("Running"),
      30_000,
      1_000,
    );

    const console = new ConsoleSession(name);
    try {
      await console.expect(/root@[\w-]+:~# /, BOOT_TIMEOUT_MS, { pokeMs: 3_000 });
      const from = console.transcript.length;
      console.type("echo answer-$((6*7)) from $(hostname)\r");
      await console.expect(new RegExp(`answer-42 from ${name}-guest`), 30_000, { from });
    } finally {
      await console.close();
    }

    const stop = await virtctl(["stop", name]);
    expect(stop.stdout.trim()).toBe(`VM ${name} was scheduled to stop`);
    await eventually(
      async () => expect(await jsonpath("vm", name, "{.status.printableStatus}")).toBe("Stopped"),
      120_000,
      1_000,
    );
    await eventually(
      async () => {
        expect((await kubectl(["get", "vmi", name])).code).not.toBe(0);
        expect(
          await kubectlOk(["get", "pods", "-l", `kubevirt.io=virt-launcher`, "-o", "name"]),
        ).not.toContain(`virt-launcher-${name}-`);
      },
      120_000,
      1_000,
    );
  });
});
