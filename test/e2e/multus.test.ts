// Secondary networks end to end: a VM on the pod network plus two multus networks with the bridge binding.
// multus (each node's primary CNI) attaches the launcher Pod to both NetworkAttachmentDefinitions,
// virt-controller reads the network-status annotation into the VMI, virt-handler builds the article's layout
// in the Pod (the pod interface as a placeholder keeping its IP, a k6t- bridge, the tap enslaved to it), and
// the launcher's DHCP server hands each secondary address to the guest, which then reaches another Pod on
// that network. A VM naming a NetworkAttachmentDefinition that does not exist gets upstream's FailedCreate.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ConsoleSession,
  applyObject,
  conditionOf,
  eventually,
  jsonpath,
  kubectl,
  kubectlOk,
  runningLauncher,
} from "./harness.js";
import { testGuestVM } from "./test-guest-vm.js";
import { generateHashedInterfaceName } from "../../pkg/network/namescheme/namescheme.js";
import { SECONDARY_NETWORKS, bridgeNetworkConfig } from "../../deploy/local/cluster/secondary-networks.js";
import type { SecondaryNetwork } from "../../deploy/local/cluster/secondary-networks.js";
import type { VirtualMachine } from "../../pkg/api/generated/v1.js";
import { networkStatusesFromPod } from "../../pkg/network/multus/status.js";
import type { NetworkStatus } from "../../pkg/network/multus/status.js";

const BOOT_TIMEOUT_MS = 300_000;
const NAMESPACE = "e2e-multus";
const VM = "e2e-multus";
const PEER = "e2e-multus-peer";
/** The VMI's networks: each a NetworkAttachmentDefinition of the same name on a suite-made bridge. */
const NETWORKS = ["blue", "green"] as const;
const [BLUE, GREEN] = SECONDARY_NETWORKS as [SecondaryNetwork, SecondaryNetwork];

/** A NetworkAttachmentDefinition on a suite-made bridge, with host-local addresses from part of its range. */
function attachmentDefinition(name: string, bridge: string, subnet: string) {
  return {
    apiVersion: "k8s.cni.cncf.io/v1",
    kind: "NetworkAttachmentDefinition",
    metadata: { name, namespace: NAMESPACE },
    spec: { config: bridgeNetworkConfig(`${NAMESPACE}-${name}`, bridge, subnet) },
  };
}

/** Quarters of a /24 segment: the seed VM's example networks (examples/seed-vm) hand out .200-.250 of the same bridges. */
const firstQuarter = (subnet: string) => subnet.replace(/\.0\/24$/, ".0/26");
const secondQuarter = (subnet: string) => subnet.replace(/\.0\/24$/, ".64/26");
/** Whether `address` lies in quarter `index` (0-3) of the /24 `subnet`. */
function inQuarter(address: string, subnet: string, index: number): boolean {
  const prefix = subnet.replace(/\.0\/24$/, ".");
  const host = Number(address.startsWith(prefix) ? address.slice(prefix.length) : NaN);
  return host >= index * 64 && host < (index + 1) * 64;
}

function multusVM(name: string, networkNames: readonly string[]): VirtualMachine {
  const vm = testGuestVM(name, { podNetwork: "masquerade" });
  vm.metadata = { ...vm.metadata, namespace: NAMESPACE };
  const spec = vm.spec.template!.spec!;
  for (const network of networkNames) {
    spec.domain.devices.interfaces!.push({ name: network, bridge: {} });
    spec.networks!.push({ name: network, multus: { networkName: network } });
  }
  return vm;
}

const inNamespace = (kind: string, name: string, path: string) => jsonpath(kind, name, path, NAMESPACE);

beforeAll(async () => {
  await kubectlOk(["create", "namespace", NAMESPACE]);
  await applyObject(attachmentDefinition("blue", BLUE.bridge, firstQuarter(BLUE.subnet)));
  await applyObject(attachmentDefinition("green", GREEN.bridge, firstQuarter(GREEN.subnet)));
  await applyObject({
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: PEER,
      namespace: NAMESPACE,
      annotations: { "k8s.v1.cni.cncf.io/networks": "blue" },
    },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [{ name: "peer", image: "busybox:1.36", command: ["sleep", "3600"] }],
    },
  });
  await applyObject(multusVM(VM, NETWORKS));
}, 60_000);

afterAll(async () => {
  await kubectl(["delete", "namespace", NAMESPACE, "--ignore-not-found", "--wait=true", "--timeout=180s"]);
});

/** The Pod's network-status as multus wrote it, read with the parser virt-controller uses. */
async function networkStatus(pod: string): Promise<NetworkStatus[]> {
  const json = await kubectl(["-n", NAMESPACE, "get", "pod", pod, "-o", "json"]);
  return json.code === 0
    ? networkStatusesFromPod(JSON.parse(json.stdout) as Parameters<typeof networkStatusesFromPod>[0])
    : [];
}

describe("a VM with the pod network and two multus bridge networks", () => {
  let launcher: string;
  let peerAddress: string;

  it(
    "gets a launcher Pod attached to both networks, and the VMI reports every interface",
    async () => {
      launcher = await runningLauncher(VM, BOOT_TIMEOUT_MS, NAMESPACE);
      const requested = JSON.parse(
        await inNamespace("pod", launcher, "{.metadata.annotations.k8s\\.v1\\.cni\\.cncf\\.io/networks}"),
      ) as Array<{ name: string; namespace: string; interface: string }>;
      expect(requested).toEqual(
        NETWORKS.map((network) => ({
          interface: generateHashedInterfaceName(network),
          name: network,
          namespace: NAMESPACE,
        })),
      );
      const statuses = await networkStatus(launcher);
      for (const network of NETWORKS) {
        const entry = statuses.find((status) => status.name === `${NAMESPACE}/${network}`);
        expect(entry?.interface).toBe(generateHashedInterfaceName(network));
        expect(entry?.ips?.length).toBe(1);
      }

      await eventually(
        async () => {
          const interfaces = JSON.parse(await inNamespace("vmi", VM, "{.status.interfaces}")) as Array<{
            name: string;
            infoSource?: string;
            podInterfaceName?: string;
            ipAddress?: string;
            mac?: string;
          }>;
          expect(interfaces.map((iface) => iface.name).sort()).toEqual(["blue", "default", "green"]);
          for (const network of NETWORKS) {
            const iface = interfaces.find((candidate) => candidate.name === network)!;
            const podAddress = statuses.find((status) => status.name === `${NAMESPACE}/${network}`)!.ips![0];
            expect(iface.podInterfaceName).toBe(generateHashedInterfaceName(network));
            expect(iface.infoSource).toContain("multus-status");
            expect(iface.ipAddress).toBe(podAddress);
          }
        },
        120_000,
        2_000,
      );
    },
    BOOT_TIMEOUT_MS + 60_000,
  );

  it("shows the article's layout in the launcher: placeholder with the pod IP, k6t- bridge, tap", async () => {
    const links = JSON.parse(
      await kubectlOk(["-n", NAMESPACE, "exec", launcher, "-c", "compute", "--", "ip", "-j", "addr"]),
    ) as Array<{
      ifname: string;
      master?: string;
      link_type: string;
      addr_info: Array<{ local: string; prefixlen: number }>;
    }>;
    const byName = new Map(links.map((link) => [link.ifname, link]));
    const statuses = await networkStatus(launcher);
    for (const network of NETWORKS) {
      const podIface = generateHashedInterfaceName(network);
      const hash = podIface.slice("pod".length);
      const placeholder = byName.get(podIface);
      const podAddress = statuses.find((status) => status.name === `${NAMESPACE}/${network}`)!.ips![0];
      expect(placeholder?.addr_info.map((addr) => addr.local)).toContain(podAddress);
      const bridge = byName.get(`k6t-${hash}`);
      expect(
        bridge?.addr_info.some((addr) => addr.local.startsWith("169.254.75.") && addr.prefixlen === 32),
      ).toBe(true);
      expect(byName.get(`tap${hash}`)?.master).toBe(`k6t-${hash}`);
      expect(byName.get(`${hash}-nic`)?.master).toBe(`k6t-${hash}`);
    }
    const domain = await kubectlOk([
      "-n",
      NAMESPACE,
      "exec",
      launcher,
      "-c",
      "compute",
      "--",
      "virsh",
      "dumpxml",
      "1",
    ]);
    for (const network of NETWORKS) {
      const hash = generateHashedInterfaceName(network).slice("pod".length);
      expect(domain).toMatch(new RegExp(`<target dev='tap${hash}' managed='no'/>`));
      expect(domain).toContain(`<alias name='ua-${network}'/>`);
    }
  });

  it(
    "gives the guest each secondary address by DHCP, and the guest reaches a Pod on the blue network",
    async () => {
      await eventually(
        async () => {
          const statuses = await networkStatus(PEER);
          const entry = statuses.find((status) => status.name === `${NAMESPACE}/blue`);
          expect(entry?.ips?.length).toBe(1);
          peerAddress = entry!.ips![0]!;
        },
        120_000,
        1_000,
      );
      const launcherStatuses = await networkStatus(launcher);
      const session = new ConsoleSession(VM, NAMESPACE);
      try {
        await session.expect(/root@[\w-]+:~# /, BOOT_TIMEOUT_MS, { pokeMs: 3_000 });
        for (const network of NETWORKS) {
          const address = launcherStatuses.find((status) => status.name === `${NAMESPACE}/${network}`)!
            .ips![0]!;
          await eventually(
            async () => {
              const { output } = await session.run("ip -4 -o addr show");
              expect(output).toContain(`inet ${address}/26`);
            },
            120_000,
            3_000,
          );
        }
        const ping = await session.run(`ping -c 3 -W 2 ${peerAddress}`);
        expect(ping.status, ping.output).toBe(0);
        expect(ping.output).toMatch(/3 packets transmitted, 3 (packets )?received/);
      } finally {
        await session.close();
      }
    },
    BOOT_TIMEOUT_MS + 240_000,
  );
});

describe("a VM whose only network is a multus default network", () => {
  const name = "e2e-multus-default";
  // multus looks a default network without a namespace up in its own namespace (kube-system), as it does
  // on any cluster: the VM names the NAD with its namespace.
  it(
    "runs on that network in place of the cluster network: the Pod's and the guest's address are from it",
    async () => {
      await applyObject(attachmentDefinition("orange", GREEN.bridge, secondQuarter(GREEN.subnet)));
      const vm = testGuestVM(name);
      vm.metadata = { ...vm.metadata, namespace: NAMESPACE };
      const spec = vm.spec.template!.spec!;
      spec.domain.devices.interfaces = [{ name: "orange", bridge: {} }];
      spec.networks = [{ name: "orange", multus: { default: true, networkName: `${NAMESPACE}/orange` } }];
      await applyObject(vm);
      const pod = await runningLauncher(name, BOOT_TIMEOUT_MS, NAMESPACE);
      expect(
        await inNamespace("pod", pod, "{.metadata.annotations.v1\\.multus-cni\\.io/default-network}"),
      ).toBe(`${NAMESPACE}/orange`);
      const podIP = await inNamespace("pod", pod, "{.status.podIP}");
      expect(inQuarter(podIP, GREEN.subnet, 1)).toBe(true);
      const primary = (await networkStatus(pod)).find((status) => status.default === true);
      expect(primary).toMatchObject({ name: `${NAMESPACE}/orange`, interface: "eth0" });
      // the guest asks for its address by DHCP and its agent reports it
      await eventually(
        async () => {
          const interfaces = JSON.parse(await inNamespace("vmi", name, "{.status.interfaces}")) as Array<{
            name: string;
            ipAddress?: string;
            podInterfaceName?: string;
            infoSource?: string;
          }>;
          expect(interfaces).toHaveLength(1);
          expect(interfaces[0]).toMatchObject({ name: "orange", ipAddress: podIP, podInterfaceName: "eth0" });
          expect(interfaces[0]!.infoSource).toContain("guest-agent");
        },
        BOOT_TIMEOUT_MS,
        3_000,
      );
    },
    BOOT_TIMEOUT_MS * 2,
  );
});

describe("a VM naming a NetworkAttachmentDefinition that does not exist", () => {
  const name = "e2e-multus-missing";
  // Upstream fails the launcher Pod's rendering (it reads each NAD for its resource name) and reports it in
  // the VMI's Synchronized condition only: v1.8.4 records no event for a failed render.
  it("is not started: the VMI reads FailedCreate with upstream's message", async () => {
    await applyObject(multusVM(name, ["absent"]));
    await eventually(
      async () => {
        const message = await inNamespace(
          "vmi",
          name,
          '{.status.conditions[?(@.type=="Synchronized")].message}',
        );
        expect(message).toContain(`failed to locate network attachment definition ${NAMESPACE}/absent`);
        expect(await conditionOf("vmi", name, "Synchronized", NAMESPACE)).toBe("False/FailedCreate");
      },
      120_000,
      2_000,
    );
    const pods = await kubectlOk([
      "-n",
      NAMESPACE,
      "get",
      "pods",
      "-l",
      `vm.kubevirt.io/name=${name}`,
      "-o",
      "name",
    ]);
    expect(pods.trim()).toBe("");
  }, 180_000);
});
