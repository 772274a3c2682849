// What kubevirt-ts does not build yet, as admission causes: the VMI part is the shared subset the launcher's
// converter also enforces (so a VMI the converter would refuse never gets past the webhook, in the same
// words), plus the VM-level rows; upstream's own cause on a field is not repeated.
import { describe, expect, it } from "vitest";
import type {
  Disk,
  VirtualMachineInstance,
  VirtualMachineInstanceSpec,
} from "../../../../api/generated/v1.js";
import { unsupportedFields } from "../../../../virt-launcher/virtwrap/converter/subset.js";
import { Path, invalidCause, specPath } from "../../../../api/causes.js";
import {
  validateInstanceSpecSupported,
  validateMetadataSupported,
  withNotYetSupported,
} from "./not-yet-supported.js";
import { notSupported, specWith, validSpec } from "./testing.js";
import { admitVMICreate } from "./vmi-create-admitter.js";
import { clusterWith } from "../../../../defaults/testing.js";

type Change = (spec: VirtualMachineInstanceSpec) => void;

function addPVC(spec: VirtualMachineInstanceSpec, disk: Disk): void {
  spec.domain.devices.disks?.push(disk);
  spec.volumes?.push({ name: disk.name, persistentVolumeClaim: { claimName: "c" } });
}

/** Features the converter refuses that upstream's rules accept (issue 4's examples among them). */
const beyondTheConverter: Array<[string, Change]> = [
  ["EFI", (s) => (s.domain.firmware = { bootloader: { efi: { secureBoot: false } } })],
  ["a TPM", (s) => (s.domain.devices.tpm = {})],
  ["Hyper-V enlightenments", (s) => (s.domain.features = { hyperv: { relaxed: {} } })],
  ["I/O threads", (s) => (s.domain.ioThreadsPolicy = "shared")],
  ["a LUN with a persistent reservation", (s) => addPVC(s, { name: "pvc", lun: { reservation: true } })],
  ["a downwardMetrics volume", (s) => s.volumes?.push({ name: "dm", downwardMetrics: {} })],
  [
    "a network from a resource claim",
    (s) => (s.networks = [{ name: "default", resourceClaim: { claimName: "c", requestName: "r" } }]),
  ],
];

const vmiWith = (spec: VirtualMachineInstanceSpec): VirtualMachineInstance => ({
  apiVersion: "kubevirt.io/v1",
  kind: "VirtualMachineInstance",
  metadata: { name: "testvmi", namespace: "default" },
  spec,
});

describe("features kubevirt-ts does not support yet", () => {
  it("leaves the supported subset alone", () => {
    const bridge = specWith((s) => (s.domain.devices.interfaces = [{ name: "default", bridge: {} }]));
    expect(validateInstanceSpecSupported(specPath(), validSpec())).toEqual([]);
    expect(validateInstanceSpecSupported(specPath(), bridge)).toEqual([]);
  });

  it.each(beyondTheConverter)(
    "refuses a VMI with %s at creation, with exactly the converter's causes",
    (_what, change) => {
      const vmi = vmiWith(specWith(change));
      const fromConverter = unsupportedFields(vmi);
      expect(fromConverter.length).toBeGreaterThan(0);
      const verdict = admitVMICreate(
        { operation: "CREATE", object: vmi, username: "alice" },
        {
          clusterConfig: clusterWith(),
          kubeVirtServiceAccounts: new Set(),
        },
      );
      const ours = verdict.causes.filter((cause) => cause.message?.includes("by kubevirt-ts yet"));
      expect(ours).toEqual(fromConverter.map(({ field, message }) => notSupported(field, message)));
    },
  );

  it("words the causes as the shared subset does, at the template's path", () => {
    const spec = specWith((s) => {
      s.volumes?.push({ name: "dm", downwardMetrics: {} });
      s.domain.devices.interfaces = [{ name: "default", sriov: {} }];
      s.domain.devices.gpus = [{ name: "g", deviceName: "nvidia/T4" }];
    });
    expect(validateInstanceSpecSupported(Path.of("spec", "template", "spec"), spec)).toEqual([
      notSupported(
        "spec.template.spec.domain.devices.interfaces[0].sriov",
        "the sriov interface binding is not supported by kubevirt-ts yet (supported: masquerade, bridge)",
      ),
      notSupported(
        "spec.template.spec.domain.devices.gpus",
        "GPU passthrough is not supported by kubevirt-ts yet",
      ),
      notSupported(
        "spec.template.spec.volumes[2].downwardMetrics",
        "the downwardMetrics volume source is not supported by kubevirt-ts yet (supported: containerDisk, cloudInitNoCloud, cloudInitConfigDrive, emptyDisk, ephemeral, persistentVolumeClaim, dataVolume, hostDisk, configMap, secret, serviceAccount, downwardAPI)",
      ),
    ]);
  });

  it("refuses hook sidecars in the metadata", () => {
    const metadata = { annotations: { "hooks.kubevirt.io/hookSidecars": "[]" } };
    expect(validateMetadataSupported(Path.of("metadata"), metadata)).toEqual([
      notSupported(
        "metadata.annotations[hooks.kubevirt.io/hookSidecars]",
        "the hooks.kubevirt.io/hookSidecars annotation is not supported by kubevirt-ts yet",
      ),
    ]);
  });

  it("adds one cause per field, leaving a field upstream already refuses to upstream's cause", () => {
    const spec = specWith((s) => {
      s.domain.devices.interfaces = [{ name: "default", slirp: {} }];
      s.domain.devices.tpm = {};
    });
    const upstream = [
      invalidCause(
        "Slirp interface support has been discontinued since v1.3",
        "spec.domain.devices.interfaces[0].slirp",
      ),
    ];
    const causes = withNotYetSupported(
      upstream,
      { at: Path.of("metadata"), value: undefined },
      { at: specPath(), value: spec },
    );
    expect(causes).toEqual([
      ...upstream,
      notSupported("spec.domain.devices.tpm", "spec.domain.devices.tpm is not supported by kubevirt-ts yet"),
    ]);
  });
});
