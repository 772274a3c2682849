// Helpers for the converter's tests (not used by production code).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { VirtualMachineInstance, VirtualMachineInstanceSpec } from "../../../api/generated/v1.js";
import { setDefaultVirtualMachineInstance } from "../../../defaults/defaults.js";
import { clusterWith, fixedUUID } from "../../../defaults/testing.js";
import { marshalDomainXML } from "../api/domain-xml.js";
import type { ConverterContext } from "./context.js";
import { upstreamLayoutContext } from "./context.js";
import { convertVMIToDomain } from "./converter.js";

export const TEST_UID = "6b1f0c36-0c5d-4a57-a7c4-2f8f2c1b9e01";

/** A VMI as the mutating webhook leaves it (amd64, software emulation allowed). */
export function defaultedVMI(
  spec: Partial<VirtualMachineInstanceSpec> = {},
  metadata: VirtualMachineInstance["metadata"] = {},
): VirtualMachineInstance {
  const vmi: VirtualMachineInstance = {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: { name: "testvmi", namespace: "default", uid: TEST_UID, ...metadata },
    spec: { domain: { devices: {} }, ...spec },
  };
  const config = clusterWith({ developerConfiguration: { useEmulation: true } });
  const result = setDefaultVirtualMachineInstance(config, vmi, { newUUID: fixedUUID });
  if (!result.ok) throw new Error(`defaults refused the test VMI: ${result.message}`);
  return result.value;
}

/** Upstream's layout on a node without KVM, containerDisk images in qcow2. */
export function testContext(
  vmi: VirtualMachineInstance,
  overrides: Partial<ConverterContext> = {},
): ConverterContext {
  const base = upstreamLayoutContext(vmi, {
    allowEmulation: true,
    hypervisorDeviceAvailable: false,
    containerDiskFormat: () => "qcow2",
  });
  return { ...base, ...overrides };
}

/** Whitespace between tags removed, so fragments compare regardless of indentation. */
export function compactXML(xml: string): string {
  return xml.replace(/>\s+</g, "><").trim();
}

/** The domain XML of a VMI, compacted. */
export function domainXMLOf(vmi: VirtualMachineInstance, overrides: Partial<ConverterContext> = {}): string {
  return compactXML(marshalDomainXML(convertVMIToDomain(vmi, testContext(vmi, overrides)).spec));
}

export interface ValidationResult {
  valid: boolean;
  output: string;
}

/** libvirt's own schema check; undefined when the tool (or the xmllint it runs) is not installed. */
export function virtXMLValidate(xml: string): ValidationResult | undefined {
  for (const tool of ["virt-xml-validate", "xmllint"]) {
    if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0) return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), "domain-xml-"));
  try {
    const file = join(dir, "domain.xml");
    writeFileSync(file, xml);
    const run = spawnSync("virt-xml-validate", [file, "domain"], { encoding: "utf8" });
    return { valid: run.status === 0, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const virtXMLValidateMissing =
  "virt-xml-validate or xmllint is not installed (Debian: apt-get install libvirt-clients libxml2-utils)";
