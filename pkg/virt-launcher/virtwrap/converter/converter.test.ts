import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import { VirtualMachineInstanceSchema } from "../../../api/generated/v1.js";
import { parse } from "../../../api/parse.js";
import { setDefaultVirtualMachineInstance } from "../../../defaults/defaults.js";
import { clusterWith, fixedUUID } from "../../../defaults/testing.js";
import { marshalDomainXML, unmarshalDomainXML } from "../api/domain-xml.js";
import type { ConverterContext } from "./context.js";
import { upstreamLayoutContext } from "./context.js";
import { convertVMIToDomain } from "./converter.js";
import { UnsupportedError } from "./errors.js";
import { TEST_UID, virtXMLValidate, virtXMLValidateMissing } from "./testing.js";
import { runnable } from "../../../testutils/requirement.js";

const examplesDir = new URL("../../../../test/conformance/upstream-examples/", import.meta.url);
const goldenFile = new URL("testdata/vmi-fedora.domain.xml", import.meta.url);

/** The VMIs an example file describes: VMIs themselves, and the templates of VMs, replica sets and pools. */
function exampleVMIs(file: string): VirtualMachineInstance[] {
  const found: VirtualMachineInstance[] = [];
  for (const document of parseAllDocuments(readFileSync(new URL(file, examplesDir), "utf8"))) {
    const object = document.toJS() as {
      kind?: string;
      metadata?: { name?: string };
      spec?: Record<string, unknown>;
    } | null;
    const name = object?.metadata?.name ?? file;
    const template =
      object?.kind === "VirtualMachineInstance"
        ? object
        : object?.kind === "VirtualMachine" || object?.kind === "VirtualMachineInstanceReplicaSet"
          ? object.spec?.["template"]
          : object?.kind === "VirtualMachinePool"
            ? (object.spec?.["virtualMachineTemplate"] as { spec?: { template?: unknown } } | undefined)?.spec
                ?.template
            : undefined;
    if (template === undefined) continue;
    const parsed = parse(VirtualMachineInstanceSchema, {
      apiVersion: "kubevirt.io/v1",
      kind: "VirtualMachineInstance",
      ...(template as object),
    });
    if (!parsed.ok) throw new Error(`${file}: ${parsed.errors.map(String).join("; ")}`);
    const vmi = parsed.value;
    vmi.metadata = { ...vmi.metadata, name, namespace: "default", uid: TEST_UID };
    found.push(vmi);
  }
  return found;
}

const cluster = clusterWith({ developerConfiguration: { useEmulation: true } });

function defaulted(vmi: VirtualMachineInstance): VirtualMachineInstance {
  const result = setDefaultVirtualMachineInstance(cluster, vmi, { newUUID: fixedUUID });
  if (!result.ok) throw new Error(`defaults refused ${vmi.metadata?.name}: ${result.message}`);
  return result.value;
}

/** A defaulted copy of the VMI converted with upstream's launcher layout. */
function convertExample(vmi: VirtualMachineInstance): string {
  const ready = defaulted(vmi);
  return marshalDomainXML(convertVMIToDomain(ready, contextFor(ready)).spec);
}

function contextFor(vmi: VirtualMachineInstance): ConverterContext {
  return upstreamLayoutContext(vmi, {
    allowEmulation: true,
    hypervisorDeviceAvailable: false,
    containerDiskFormat: () => "qcow2",
    // Upstream's default SMBIOS of the KubeVirt configuration.
    smbios: { manufacturer: "KubeVirt", product: "None", family: "KubeVirt", sku: "", version: "" },
  });
}

const validatorProbe = virtXMLValidate("<domain/>");
const withValidator = it.runIf(
  runnable("the libvirt schema checks", validatorProbe === undefined ? virtXMLValidateMissing : undefined),
);

function expectValidDomainXML(xml: string): void {
  const result = virtXMLValidate(xml);
  expect(result?.valid, result?.output).toBe(true);
}

describe("the converter on upstream's vmi-fedora example", () => {
  const [fedora] = exampleVMIs("vmi-fedora.yaml");
  if (fedora === undefined) throw new Error("vmi-fedora.yaml holds no VMI");
  const xml = convertExample(fedora);

  it("gives the domain XML of the golden file (UPDATE_GOLDEN=1 rewrites it)", () => {
    if (process.env["UPDATE_GOLDEN"] === "1") writeFileSync(goldenFile, xml);
    expect(xml).toBe(readFileSync(goldenFile, "utf8"));
  });

  withValidator("gives a domain libvirt's schema accepts", () => {
    expectValidDomainXML(xml);
  });

  withValidator("is checked by a validator that does reject a bad domain", () => {
    const broken = xml.replace('<domain type="qemu"', '<domain type="no-such-hypervisor"');
    expect(virtXMLValidate(broken)?.valid).toBe(false);
  });

  it("reads back as the same domain", () => {
    expect(marshalDomainXML(unmarshalDomainXML(xml))).toBe(xml);
  });
});

describe("the converter on every upstream example", () => {
  const examples = readdirSync(examplesDir)
    .filter((file) => file.endsWith(".yaml"))
    .flatMap((file) => exampleVMIs(file).map((vmi) => ({ file, vmi })));

  /** Examples inside the walking skeleton's subset; each must convert. */
  const mustConvert = [
    "vm-cirros.yaml",
    "vm-cirros-sata.yaml",
    "vmi-ephemeral.yaml",
    "vmi-fedora.yaml",
    "vmi-masquerade.yaml",
    "vmi-nocloud.yaml",
    "vmi-sata.yaml",
  ];

  it.each(examples)(
    "$file converts to a valid domain or is refused as not supported yet",
    ({ file, vmi }) => {
      let xml: string | undefined;
      try {
        xml = convertExample(vmi);
      } catch (error) {
        expect(error, `${file}: ${String(error)}`).toBeInstanceOf(UnsupportedError);
        expect(mustConvert).not.toContain(file);
        return;
      }
      if (validatorProbe !== undefined) expectValidDomainXML(xml);
    },
  );

  it("covers the examples of the subset", () => {
    const files = new Set(examples.map(({ file }) => file));
    for (const file of mustConvert) expect(files).toContain(file);
  });
});
