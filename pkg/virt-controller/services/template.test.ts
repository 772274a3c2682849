import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { clusterWith } from "../../defaults/testing.js";
import type { ClusterConfig } from "../../virt-config/cluster-config.js";
import type { Pod } from "../../api/core/v1/pod.js";
import type { PersistentVolumeClaim } from "../../api/core/v1/persistentvolumeclaim.js";
import { containerDiskImages, containerDiskPullSecrets } from "./container-disk.js";
import type { LauncherSettings } from "./render-context.js";
import { LaunchManifestError, TemplateService } from "./template.js";

// The launcher Pod, rule by rule, as upstream's template_test.go checks it. The seed article's Pod
// (virt-launcher-<vmi>-xxxxx with its compute args, volumes and devices.kubevirt.io limits) is the model.

const settings: LauncherSettings = {
  launcherImage: "registry:5000/kubevirt/virt-launcher:devel",
  launcherQemuTimeoutSeconds: 240,
  virtShareDir: "/var/run/kubevirt",
  ephemeralDiskDir: "/var/run/kubevirt-ephemeral-disks",
  containerDiskDir: "/var/run/kubevirt/container-disks",
  hotplugDiskDir: "/var/run/kubevirt/hotplug-disks",
  imagePullSecret: "",
};
const uid = "2b33f85a-5752-4bd0-aadb-2dc06be33772";

function testVMI(change: (vmi: VirtualMachineInstance) => void = () => undefined): VirtualMachineInstance {
  const vmi: VirtualMachineInstance = {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: {
      name: "ecs-s4-1",
      namespace: "wq-test",
      uid,
      labels: { "kubevirt.io/vm": "ecs-s4-1" },
      annotations: {
        "ovn.kubernetes.io/allow_live_migration": "true",
        "kubectl.kubernetes.io/last-applied-configuration": "{}",
        "kubevirt.io/latest-observed-api-version": "v1",
      },
    },
    spec: {
      architecture: "amd64",
      domain: {
        cpu: { cores: 1, sockets: 4, threads: 1, model: "host-model" },
        devices: {
          disks: [
            { name: "containerdisk", disk: { bus: "virtio" } },
            { name: "cloudinitdisk", disk: { bus: "virtio" } },
          ],
          interfaces: [{ name: "default", masquerade: {} }],
        },
        machine: { type: "q35" },
        memory: { guest: "8Gi" },
        resources: { requests: { cpu: "2", memory: "2Gi" } },
      },
      networks: [{ name: "default", pod: {} }],
      volumes: [
        {
          name: "containerdisk",
          containerDisk: { image: "kubevirt-ts/test-guest:latest", imagePullPolicy: "Always" },
        },
        { name: "cloudinitdisk", cloudInitNoCloud: { userData: "#cloud-config\n" } },
      ],
    },
    status: { runtimeUser: 107 },
  };
  change(vmi);
  return vmi;
}

function render(
  vmi: VirtualMachineInstance,
  config: ClusterConfig = clusterWith(),
  options: Partial<LauncherSettings> = {},
  pvcs: readonly PersistentVolumeClaim[] = [],
): Pod {
  return new TemplateService(
    { ...settings, ...options },
    () => config,
    (namespace, name) =>
      pvcs.find((pvc) => pvc.metadata.namespace === namespace && pvc.metadata.name === name),
    () => 0.5,
  ).renderLaunchManifestWith(vmi, new Map());
}

const compute = (pod: Pod) => {
  const container = pod.spec.containers[0];
  if (container?.name !== "compute") throw new Error("compute is not the first container");
  return container;
};
const argValue = (pod: Pod, flag: string): string | undefined => {
  const args = compute(pod).args ?? [];
  const index = args.indexOf(flag);
  return index < 0 ? undefined : args[index + 1];
};
const names = (containers: Array<{ name: string }> | undefined) =>
  (containers ?? []).map((container) => container.name);

describe("launcher Pod metadata", () => {
  const pod = render(testVMI());

  it("is named virt-launcher-<vmi>-<random> in the VMI's namespace and owned by the VMI", () => {
    expect(pod.metadata).toMatchObject({ generateName: "virt-launcher-ecs-s4-1-", namespace: "wq-test" });
    expect(pod.metadata.name).toBeUndefined();
    expect(pod.metadata.ownerReferences).toEqual([
      {
        apiVersion: "kubevirt.io/v1",
        kind: "VirtualMachineInstance",
        name: "ecs-s4-1",
        uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
  });

  it("carries the VMI's labels plus KubeVirt's", () => {
    expect(pod.metadata.labels).toEqual({
      "kubevirt.io/vm": "ecs-s4-1",
      "kubevirt.io": "virt-launcher",
      "kubevirt.io/created-by": uid,
      "vm.kubevirt.io/name": "ecs-s4-1",
      "vmi.kubevirt.io/id": "ecs-s4-1",
    });
  });

  it("carries the VMI's annotations except kubectl's and the controllers' bookkeeping", () => {
    expect(pod.metadata.annotations).toEqual({
      "kubevirt.io/domain": "ecs-s4-1",
      "ovn.kubernetes.io/allow_live_migration": "true",
      "kubectl.kubernetes.io/default-container": "compute",
      "kubevirt.io/migrationTransportUnix": "true",
      "descheduler.alpha.kubernetes.io/request-evict-only": "",
      // Masquerade: istio must leave the in-pod bridge alone.
      "traffic.sidecar.istio.io/kubevirtInterfaces": "k6t-eth0",
      "istio.io/reroute-virtual-interfaces": "k6t-eth0",
    });
  });

  it("reports its memory overhead in an annotation with VmiMemoryOverheadReport listed (off by default in v1.8.4)", () => {
    const gated = clusterWith({ developerConfiguration: { featureGates: ["VmiMemoryOverheadReport"] } });
    // 248Mi fixed + 4 vCPUs × 8Mi + 32Mi video + 4Mi page tables for 2Gi
    expect(render(testVMI(), gated).metadata.annotations?.["kubevirt.io/memory-overhead-bytes"]).toBe(
      String(316 * 1024 * 1024),
    );
  });

  it("shortens a long VMI id label with a hash", () => {
    const long = "x".repeat(70);
    const labels = render(testVMI((v) => (v.metadata = { ...v.metadata, name: long }))).metadata.labels ?? {};
    expect(labels["vmi.kubevirt.io/id"]).toMatch(/^x{54}-[0-9a-f]{8}$/);
  });
});

describe("compute container", () => {
  const pod = render(testVMI());

  it("runs virt-launcher-monitor from the launcher image with upstream's arguments", () => {
    expect(compute(pod)).toMatchObject({
      image: settings.launcherImage,
      imagePullPolicy: "IfNotPresent",
      command: ["/usr/bin/virt-launcher-monitor"],
      terminationMessagePolicy: "FallbackToLogsOnError",
    });
    expect(compute(pod).args).toEqual([
      "--qemu-timeout",
      "300s",
      "--name",
      "ecs-s4-1",
      "--uid",
      uid,
      "--namespace",
      "wq-test",
      "--kubevirt-share-dir",
      "/var/run/kubevirt",
      "--ephemeral-disk-dir",
      "/var/run/kubevirt-ephemeral-disks",
      "--container-disk-dir",
      "/var/run/kubevirt/container-disks",
      "--grace-period-seconds",
      "45",
      "--hook-sidecars",
      "0",
      "--ovmf-path",
      "/usr/share/edk2/ovmf",
      "--disk-memory-limit",
      "2097152000",
      "--hypervisor",
      "kvm",
      "--run-as-nonroot",
    ]);
  });

  it("adds --upgrade-ordinal-ifaces with PodSecondaryInterfaceNamingUpgrade listed (off by default in v1.8.4)", () => {
    const gated = clusterWith({
      developerConfiguration: { featureGates: ["PodSecondaryInterfaceNamingUpgrade"] },
    });
    expect(compute(render(testVMI(), gated)).args?.slice(-2)).toEqual([
      "--run-as-nonroot",
      "--upgrade-ordinal-ifaces",
    ]);
  });

  it("adds --allow-emulation with useEmulation, and drops /dev/kvm from the limits", () => {
    const emulated = render(testVMI(), clusterWith({ developerConfiguration: { useEmulation: true } }));
    expect(compute(emulated).args).toContain("--allow-emulation");
    expect(compute(emulated).resources?.limits).toEqual({ "devices.kubevirt.io/tun": "1" });
  });

  it("requests the guest's memory plus overhead, the CPUs asked, and kvm, tun and vhost-net", () => {
    expect(compute(pod).resources).toEqual({
      requests: { cpu: "2", "ephemeral-storage": "50M", memory: "2364Mi" },
      limits: {
        "devices.kubevirt.io/kvm": "1",
        "devices.kubevirt.io/tun": "1",
        "devices.kubevirt.io/vhost-net": "1",
      },
    });
  });

  it("runs as qemu (107) without capabilities but NET_BIND_SERVICE, with libvirt's XDG directories", () => {
    expect(compute(pod).securityContext).toEqual({
      runAsUser: 107,
      runAsGroup: 107,
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      capabilities: { add: ["NET_BIND_SERVICE"], drop: ["ALL"] },
    });
    expect(compute(pod).env).toEqual([
      { name: "XDG_CACHE_HOME", value: "/var/run/kubevirt-private" },
      { name: "XDG_CONFIG_HOME", value: "/var/run/kubevirt-private" },
      { name: "XDG_RUNTIME_DIR", value: "/var/run" },
      { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
    ]);
  });

  it("runs as root with SYS_NICE when the VMI is not non-root", () => {
    const root = render(testVMI((v) => (v.status = {})));
    expect(compute(root).securityContext).toEqual({
      runAsUser: 0,
      runAsNonRoot: false,
      capabilities: { add: ["NET_BIND_SERVICE", "SYS_NICE"] },
    });
    expect(root.spec.securityContext).toEqual({ fsGroup: 107, runAsUser: 0 });
    expect(compute(root).args).not.toContain("--run-as-nonroot");
  });

  it("mounts the shared directories", () => {
    expect(compute(pod).volumeMounts).toEqual([
      { name: "private", mountPath: "/var/run/kubevirt-private" },
      { name: "public", mountPath: "/var/run/kubevirt" },
      { name: "ephemeral-disks", mountPath: "/var/run/kubevirt-ephemeral-disks" },
      { name: "libvirt-runtime", mountPath: "/var/run/libvirt" },
      { name: "sockets", mountPath: "/var/run/kubevirt/sockets" },
      {
        name: "container-disks",
        mountPath: "/var/run/kubevirt/container-disks",
        mountPropagation: "HostToContainer",
      },
      {
        name: "hotplug-disks",
        mountPath: "/var/run/kubevirt/hotplug-disks",
        mountPropagation: "HostToContainer",
      },
    ]);
  });

  it("exposes the ports of the interfaces, TCP by default", () => {
    const withPorts = render(
      testVMI(
        (v) =>
          (v.spec.domain.devices.interfaces = [
            {
              name: "default",
              masquerade: {},
              ports: [
                { name: "http", port: 80 },
                { port: 53, protocol: "UDP" },
              ],
            },
          ]),
      ),
    );
    expect(compute(withPorts).ports).toEqual([
      { name: "http", protocol: "TCP", containerPort: 80 },
      { protocol: "UDP", containerPort: 53 },
    ]);
  });

  it("runs exec probes through virt-probe, ten seconds later and a second longer", () => {
    const probed = render(
      testVMI(
        (v) => (v.spec.readinessProbe = { exec: { command: ["cat", "/tmp/ready"] }, initialDelaySeconds: 5 }),
      ),
    );
    expect(compute(probed).readinessProbe).toEqual({
      initialDelaySeconds: 15,
      timeoutSeconds: 2,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
      exec: {
        command: [
          "virt-probe",
          "--domainName",
          "wq-test_ecs-s4-1",
          "--timeoutSeconds",
          "1",
          "--command",
          "cat",
          "--",
          "/tmp/ready",
        ],
      },
    });
  });

  it("switches on libvirt debug logs for the debugLogs label", () => {
    const debug = render(testVMI((v) => (v.metadata = { ...v.metadata, labels: { debugLogs: "true" } })));
    expect(compute(debug).env).toContainEqual({ name: "LIBVIRT_DEBUG_LOGS", value: "1" });
  });
});

describe("containerDisk and helper containers", () => {
  const pod = render(testVMI());
  const diskDir = `/var/run/kubevirt-ephemeral-disks/container-disk-data/${uid}`;

  it("copies container-disk out of the launcher image, then pre-pulls each disk image", () => {
    expect(names(pod.spec.initContainers)).toEqual([
      "guest-console-log",
      "container-disk-binary",
      "volumecontainerdisk-init",
    ]);
    expect(pod.spec.initContainers?.[1]).toMatchObject({
      image: settings.launcherImage,
      command: ["/usr/bin/cp"],
      args: ["--preserve=all", "/usr/bin/container-disk", "/init/usr/bin/container-disk"],
      volumeMounts: [{ name: "virt-bin-share-dir", mountPath: "/init/usr/bin" }],
    });
    expect(pod.spec.initContainers?.[2]).toMatchObject({
      image: "kubevirt-ts/test-guest:latest",
      args: ["--no-op"],
    });
  });

  it("keeps one container per disk image serving it as disk_<volume index>", () => {
    expect(names(pod.spec.containers)).toEqual(["compute", "volumecontainerdisk"]);
    expect(pod.spec.containers[1]).toEqual({
      name: "volumecontainerdisk",
      image: "kubevirt-ts/test-guest:latest",
      imagePullPolicy: "Always",
      command: ["/usr/bin/container-disk"],
      args: ["--copy-path", `${diskDir}/disk_0`],
      volumeMounts: [
        { name: "container-disks", mountPath: diskDir },
        { name: "virt-bin-share-dir", mountPath: "/usr/bin" },
      ],
      resources: {
        requests: { cpu: "1m", memory: "1M", "ephemeral-storage": "50M" },
        limits: { cpu: "10m", memory: "40M" },
      },
      securityContext: {
        runAsUser: 107,
        runAsNonRoot: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ["ALL"] },
      },
    });
  });

  it("refuses kernel boot, which nothing serves to the launcher yet", () => {
    const vmi = testVMI(
      (v) => (v.spec.domain.firmware = { kernelBoot: { container: { image: "example/kernel:1" } } }),
    );
    expect(() => render(vmi)).toThrow("spec.domain.firmware.kernelBoot is not supported by kubevirt-ts yet");
  });

  it("lists a kernel-boot container like a disk image, last", () => {
    const vmi = testVMI(
      (v) =>
        (v.spec.domain.firmware = {
          kernelBoot: { container: { image: "example/kernel:1", imagePullSecret: "pull" } },
        }),
    );
    expect(containerDiskImages(vmi).map((image) => [image.volumeName, image.mountedName])).toEqual([
      ["containerdisk", "disk_0"],
      ["kernel-boot-volume", "kernel-boot"],
    ]);
    expect(containerDiskPullSecrets(vmi)).toEqual(["pull"]);
  });

  it("tails the serial console unless the cluster switches it off", () => {
    expect(pod.spec.initContainers?.[0]).toMatchObject({
      command: ["/usr/bin/virt-tail"],
      args: ["--logfile", `/var/run/kubevirt-private/${uid}/virt-serial0-log`],
      restartPolicy: "Always",
    });
    const quiet = render(testVMI(), clusterWith({ virtualMachineOptions: { disableSerialConsoleLog: {} } }));
    expect(names(quiet.spec.initContainers)).not.toContain("guest-console-log");
  });

  it("has no helper init containers without container disks", () => {
    const noDisks = render(
      testVMI((v) => {
        v.spec.volumes = [{ name: "cloudinitdisk", cloudInitNoCloud: { userData: "#cloud-config\n" } }];
        v.spec.domain.devices.autoattachSerialConsole = false;
      }),
    );
    expect(noDisks.spec.initContainers).toBeUndefined();
  });
});

describe("volumes", () => {
  it("has upstream's emptyDirs", () => {
    expect(render(testVMI()).spec.volumes).toEqual(
      [
        "private",
        "public",
        "sockets",
        "virt-bin-share-dir",
        "libvirt-runtime",
        "ephemeral-disks",
        "container-disks",
        "hotplug-disks",
      ].map((name) => ({ name, emptyDir: {} })),
    );
  });

  it("mounts cloud-init Secrets where the launcher reads them, under both spellings", () => {
    const pod = render(
      testVMI(
        (v) =>
          (v.spec.volumes = [
            {
              name: "cloudinitdisk",
              cloudInitNoCloud: {
                secretRef: { name: "my-user-data" },
                networkDataSecretRef: { name: "my-net" },
              },
            },
          ]),
      ),
    );
    expect(pod.spec.volumes).toContainEqual({
      name: "cloudinitdisk-udata",
      secret: { secretName: "my-user-data" },
    });
    expect(pod.spec.volumes).toContainEqual({
      name: "cloudinitdisk-ndata",
      secret: { secretName: "my-net" },
    });
    expect(compute(pod).volumeMounts).toContainEqual({
      name: "cloudinitdisk-udata",
      mountPath: "/var/run/kubevirt-private/secret/cloudinitdisk/userData",
      subPath: "userData",
      readOnly: true,
    });
    expect(compute(pod).volumeMounts).toContainEqual({
      name: "cloudinitdisk-ndata",
      mountPath: "/var/run/kubevirt-private/secret/cloudinitdisk/networkdata",
      subPath: "networkdata",
      readOnly: true,
    });
  });

  it("mounts a config drive's Secrets as the no-cloud ones", () => {
    const pod = render(
      testVMI(
        (v) =>
          (v.spec.volumes = [
            {
              name: "cfg",
              cloudInitConfigDrive: { secretRef: { name: "ud" }, networkDataSecretRef: { name: "nd" } },
            },
          ]),
      ),
    );
    expect(pod.spec.volumes).toContainEqual({ name: "cfg-udata", secret: { secretName: "ud" } });
    expect(pod.spec.volumes).toContainEqual({ name: "cfg-ndata", secret: { secretName: "nd" } });
    expect(compute(pod).volumeMounts).toContainEqual({
      name: "cfg-ndata",
      mountPath: "/var/run/kubevirt-private/secret/cfg/networkData",
      subPath: "networkData",
      readOnly: true,
    });
  });

  it("drops the hotplug directory when hotplug is disabled", () => {
    const pod = render(testVMI((v) => (v.spec.domain.devices.disableHotplug = true)));
    expect(pod.spec.volumes?.map((volume) => volume.name)).not.toContain("hotplug-disks");
  });
});

const claim = (name: string, volumeMode?: "Block" | "Filesystem"): PersistentVolumeClaim => ({
  metadata: { name, namespace: "wq-test" },
  spec: { accessModes: ["ReadWriteOnce"], ...(volumeMode ? { volumeMode } : {}) },
  status: { phase: "Bound" },
});

/** The test VMI with one more disk and its volume. */
const withVolume = (volume: NonNullable<VirtualMachineInstance["spec"]["volumes"]>[number]) =>
  testVMI((v) => {
    v.spec.domain.devices.disks?.push({ name: volume.name, disk: { bus: "virtio" } });
    v.spec.volumes?.push(volume);
  });

describe("storage volumes", () => {
  it("passes a Block claim as the device /dev/<volume>, not as a mount", () => {
    const pod = render(
      withVolume({ name: "bootdisk", persistentVolumeClaim: { claimName: "ecs-s4-1-bootpvc-4rbd2e" } }),
      clusterWith(),
      {},
      [claim("ecs-s4-1-bootpvc-4rbd2e", "Block")],
    );
    expect(pod.spec.volumes).toContainEqual({
      name: "bootdisk",
      persistentVolumeClaim: { claimName: "ecs-s4-1-bootpvc-4rbd2e" },
    });
    expect(compute(pod).volumeDevices).toEqual([{ name: "bootdisk", devicePath: "/dev/bootdisk" }]);
    expect(compute(pod).volumeMounts?.map((mount) => mount.name)).not.toContain("bootdisk");
  });

  it("passes a dataVolume as the claim of the same name", () => {
    const pod = render(withVolume({ name: "root", dataVolume: { name: "root-dv" } }), clusterWith(), {}, [
      claim("root-dv"),
    ]);
    expect(pod.spec.volumes).toContainEqual({
      name: "root",
      persistentVolumeClaim: { claimName: "root-dv" },
    });
    expect(compute(pod).volumeMounts).toContainEqual({
      name: "root",
      mountPath: "/var/run/kubevirt-private/vmi-disks/root",
    });
  });

  it("mounts a Filesystem claim (or one without a volumeMode) at vmi-disks/<volume>, read-only if asked", () => {
    const pod = render(
      withVolume({ name: "data", persistentVolumeClaim: { claimName: "fs", readOnly: true } }),
      clusterWith(),
      {},
      [claim("fs")],
    );
    expect(pod.spec.volumes).toContainEqual({
      name: "data",
      persistentVolumeClaim: { claimName: "fs", readOnly: true },
    });
    expect(compute(pod).volumeMounts).toContainEqual({
      name: "data",
      mountPath: "/var/run/kubevirt-private/vmi-disks/data",
    });
    expect(compute(pod).volumeDevices).toBeUndefined();
  });

  it("uses an ephemeral volume's claim as its base", () => {
    const pod = render(
      withVolume({
        name: "base",
        ephemeral: { persistentVolumeClaim: { claimName: "golden", readOnly: true } },
      }),
      clusterWith(),
      {},
      [claim("golden", "Block")],
    );
    expect(pod.spec.volumes).toContainEqual({
      name: "base",
      persistentVolumeClaim: { claimName: "golden", readOnly: true },
    });
    expect(compute(pod).volumeDevices).toEqual([{ name: "base", devicePath: "/dev/base" }]);
  });

  it("refuses to render a claim it cannot find, as upstream's PvcNotFoundError", () => {
    expect(() => render(withVolume({ name: "data", persistentVolumeClaim: { claimName: "gone" } }))).toThrow(
      expect.objectContaining({ name: "PvcNotFoundError", message: "didn't find PVC gone" }),
    );
  });

  it("leaves hotplugged claims to virt-handler", () => {
    const pod = render(
      withVolume({ name: "hot", persistentVolumeClaim: { claimName: "fs", hotpluggable: true } }),
      clusterWith(),
      {},
      [claim("fs")],
    );
    expect(pod.spec.volumes?.map((volume) => volume.name)).not.toContain("hot");
  });

  it.each([
    ["Disk", "Directory"],
    ["DiskOrCreate", "DirectoryOrCreate"],
  ])("mounts the directory of a %s host disk as a hostPath %s", (type, hostPathType) => {
    const pod = render(withVolume({ name: "host", hostDisk: { path: "/data/vms/disk.img", type } }));
    expect(pod.spec.volumes).toContainEqual({
      name: "host",
      hostPath: { path: "/data/vms", type: hostPathType },
    });
    expect(compute(pod).volumeMounts).toContainEqual({
      name: "host",
      mountPath: "/var/run/kubevirt-private/vmi-disks/host",
    });
  });

  it("mounts configMap, secret and downwardAPI disks read-only where the launcher builds their ISOs", () => {
    const pod = render(
      testVMI((v) => {
        v.spec.domain.devices.disks?.push(
          { name: "cm", disk: {} },
          { name: "sec", disk: {} },
          { name: "down", disk: {} },
        );
        v.spec.volumes?.push(
          { name: "cm", configMap: { name: "app-config", optional: true } },
          { name: "sec", secret: { secretName: "app-secret" } },
          {
            name: "down",
            downwardAPI: { fields: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }] },
          },
          // Without a disk the volume is in the Pod but not mounted, as upstream.
          { name: "unused", configMap: { name: "other" } },
        );
      }),
    );
    expect(pod.spec.volumes).toEqual(
      expect.arrayContaining([
        { name: "cm", configMap: { name: "app-config", optional: true } },
        { name: "sec", secret: { secretName: "app-secret" } },
        {
          name: "down",
          downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }] },
        },
        { name: "unused", configMap: { name: "other" } },
      ]),
    );
    const mounts = compute(pod).volumeMounts ?? [];
    expect(mounts).toEqual(
      expect.arrayContaining([
        { name: "cm", mountPath: "/var/run/kubevirt-private/config-map/cm", readOnly: true },
        { name: "sec", mountPath: "/var/run/kubevirt-private/secret/sec", readOnly: true },
        { name: "down", mountPath: "/var/run/kubevirt-private/downwardapi/down", readOnly: true },
      ]),
    );
    expect(mounts.map((mount) => mount.name)).not.toContain("unused");
  });

  it("runs the Pod as a serviceAccount volume's account, with its token mounted", () => {
    const pod = render(withVolume({ name: "sa", serviceAccount: { serviceAccountName: "builder" } }));
    expect(pod.spec.serviceAccountName).toBe("builder");
    expect(pod.spec.automountServiceAccountToken).toBe(true);
    expect(pod.spec.securityContext?.fsGroup).toBe(107);
  });
});

describe("placement and Pod settings", () => {
  const pod = render(testVMI());

  it("selects schedulable nodes of the VMI's architecture and machine type", () => {
    expect(pod.spec.nodeSelector).toEqual({
      "kubevirt.io/schedulable": "true",
      "kubernetes.io/arch": "amd64",
      "machine-type.node.kubevirt.io/q35": "true",
    });
  });

  it("adds the VMI's node selector and a named CPU model", () => {
    const placed = render(
      testVMI((v) => {
        v.spec.nodeSelector = { disk: "ssd" };
        v.spec.domain.cpu = {
          cores: 1,
          model: "Haswell",
          features: [{ name: "vmx" }, { name: "svm", policy: "forbid" }],
        };
      }),
    );
    expect(placed.spec.nodeSelector).toMatchObject({
      disk: "ssd",
      "cpu-model.node.kubevirt.io/Haswell": "true",
      "cpu-feature.node.kubevirt.io/vmx": "true",
    });
    expect(
      placed.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms,
    ).toEqual([
      { matchExpressions: [{ key: "cpu-feature.node.kubevirt.io/svm", operator: "DoesNotExist" }] },
    ]);
  });

  it("keeps a host-model CPU off nodes whose host model is obsolete", () => {
    expect(pod.spec.affinity).toEqual({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            {
              matchExpressions: [
                { key: "node-labeller.kubevirt.io/obsolete-host-model", operator: "DoesNotExist" },
              ],
            },
          ],
        },
      },
    });
  });

  it("gives the kubelet the VMI's grace period plus two paddings", () => {
    expect(pod.spec.terminationGracePeriodSeconds).toBe(60);
    const quick = render(testVMI((v) => (v.spec.terminationGracePeriodSeconds = 0)));
    expect(quick.spec.terminationGracePeriodSeconds).toBe(30);
    expect(argValue(quick, "--grace-period-seconds")).toBe("15");
  });

  it("never restarts, waits for the unpaused gate, and keeps service links and tokens out", () => {
    expect(pod.spec).toMatchObject({
      hostname: "ecs-s4-1",
      restartPolicy: "Never",
      readinessGates: [{ conditionType: "kubevirt.io/virtual-machine-unpaused" }],
      enableServiceLinks: false,
      automountServiceAccountToken: false,
      securityContext: { fsGroup: 107, runAsUser: 107, runAsGroup: 107, runAsNonRoot: true },
    });
  });

  it("takes the pull secret flag and the image pull policy of the cluster", () => {
    const pulled = render(testVMI(), clusterWith({ imagePullPolicy: "Always" }), {
      imagePullSecret: "registry-creds",
    });
    expect(pulled.spec.imagePullSecrets).toEqual([{ name: "registry-creds" }]);
    expect(compute(pulled).imagePullPolicy).toBe("Always");
  });
});

describe("refusals", () => {
  it.each<[string, (vmi: VirtualMachineInstance) => void, RegExp]>([
    [
      "a downwardMetrics volume",
      (v) => (v.spec.volumes = [{ name: "d", downwardMetrics: {} }]),
      /spec\.volumes\[0\]\.downwardMetrics: the downwardMetrics volume source is not supported by kubevirt-ts yet/,
    ],
    [
      "an SR-IOV interface",
      (v) => (v.spec.domain.devices.interfaces = [{ name: "default", sriov: {} }]),
      /interfaces\[0\]\.sriov/,
    ],
    [
      "dedicated CPUs",
      (v) => (v.spec.domain.cpu = { cores: 1, dedicatedCpuPlacement: true }),
      /spec\.domain\.cpu\.dedicatedCpuPlacement: dedicated CPU placement is not supported by kubevirt-ts yet/,
    ],
    [
      "hugepages",
      (v) => (v.spec.domain.memory = { guest: "1Gi", hugepages: { pageSize: "2Mi" } }),
      /hugepages is not supported/,
    ],
  ])("refuses %s with the field and the reason", (_name, change, message) => {
    expect(() => render(testVMI(change))).toThrow(LaunchManifestError);
    expect(() => render(testVMI(change))).toThrow(message);
  });
});
