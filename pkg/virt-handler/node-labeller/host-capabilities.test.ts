import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  cpuLabels,
  loadHostCapabilities,
  NO_CAPABILITIES,
  parseDomCapabilities,
  parseSupportedFeatures,
} from "./host-capabilities.js";

/** What this machine's libvirt 9.0 answered under TCG, as the init container writes it. */
const TCG_VOLUME = path.join(import.meta.dirname, "testdata/tcg");
const testdata = (file: string) => readFile(path.join(TCG_VOLUME, file), "utf8");

const domCapabilities = (modes: string) =>
  `<domainCapabilities><domain>qemu</domain><cpu>${modes}</cpu></domainCapabilities>`;

describe("parseDomCapabilities", () => {
  it("reads TCG's host model, vendor and named models as this machine's libvirt reports them", async () => {
    const parsed = parseDomCapabilities(await testdata("virsh_domcapabilities.xml"));
    expect(parsed.hostCpuModel?.name).toBe("EPYC");
    expect(parsed.hostCpuModel?.fallback).toBe("forbid");
    expect(parsed.hostCpuModel?.requiredFeatures).toContain("hypervisor");
    expect(parsed.vendor).toBe("AMD");
    expect(parsed.usableModels).toContain("Penryn");
    expect(parsed.usableModels).not.toContain("phenom");
    expect(parsed.knownModels).toContain("phenom");
    expect(parsed.knownModels.length).toBeGreaterThan(parsed.usableModels.length);
  });

  it("keeps only required host-model features and falls back to Intel without a vendor", () => {
    const parsed = parseDomCapabilities(
      domCapabilities(
        `<mode name='host-model' supported='yes'><model fallback='allow'>Skylake-Client</model>` +
          `<feature policy='require' name='ssbd'/><feature policy='disable' name='mpx'/></mode>`,
      ),
    );
    expect(parsed.hostCpuModel).toEqual({
      name: "Skylake-Client",
      fallback: "allow",
      requiredFeatures: ["ssbd"],
    });
    expect(parsed.vendor).toBe("Intel");
  });

  it("reports a host-model mode without a model as upstream does", () => {
    expect(
      parseDomCapabilities(domCapabilities(`<mode name='host-model' supported='yes'/>`)).hostModelError,
    ).toBe("host model mode is expected to contain a model");
  });

  it("leaves the host model out when libvirt offers no host-model mode", () => {
    const parsed = parseDomCapabilities(
      domCapabilities(
        `<mode name='custom' supported='yes'><model usable='yes'>Penryn</model><model usable='no'>EPYC</model>` +
          `<model>unlabelled</model></mode>`,
      ),
    );
    expect(parsed.hostCpuModel).toBeUndefined();
    expect(parsed.usableModels).toEqual(["Penryn"]);
    expect(parsed.knownModels).toEqual(["Penryn", "EPYC"]);
  });

  it("names the file when the XML is broken", () => {
    expect(() => parseDomCapabilities("<domainCapabilities><cpu>")).toThrow(
      /^failed to parse virsh_domcapabilities\.xml: /,
    );
    expect(() => parseSupportedFeatures("<cpu><feature policy='require' name='a'/></oops>")).toThrow(
      /supported_features\.xml/,
    );
  });
});

describe("parseSupportedFeatures", () => {
  it("keeps the features hypervisor-cpu-baseline requires", async () => {
    const features = parseSupportedFeatures(await testdata("supported_features.xml"));
    expect(features).toContain("apic");
    expect(parseSupportedFeatures(`<cpu><feature policy='disable' name='x'/></cpu>`)).toEqual([]);
  });
});

describe("cpuLabels", () => {
  const capabilities = {
    hostCpuModel: { name: "EPYC", fallback: "forbid", requiredFeatures: ["ssbd"] },
    vendor: "AMD",
    usableModels: ["Penryn", "qemu64"],
    knownModels: ["Penryn", "qemu64", "Skylake"],
    supportedFeatures: ["apic"],
  };

  it("labels as upstream's node labeller, the default obsolete models left out", () => {
    expect(cpuLabels(capabilities)).toEqual({
      "cpu-feature.node.kubevirt.io/apic": "true",
      "cpu-model.node.kubevirt.io/Penryn": "true",
      "cpu-model-migration.node.kubevirt.io/Penryn": "true",
      "cpu-model-migration.node.kubevirt.io/Skylake": "true",
      "host-model-required-features.node.kubevirt.io/ssbd": "true",
      "cpu-vendor.node.kubevirt.io/AMD": "true",
      "host-model-cpu.node.kubevirt.io/EPYC": "true",
    });
  });

  it("takes the CR's obsolete models by name, whatever their value, and marks an obsolete host model", () => {
    const labels = cpuLabels(capabilities, { Penryn: false, EPYC: true });
    expect(labels["cpu-model.node.kubevirt.io/Penryn"]).toBeUndefined();
    expect(labels["cpu-model.node.kubevirt.io/qemu64"]).toBe("true");
    expect(labels["node-labeller.kubevirt.io/obsolete-host-model"]).toBe("true");
  });

  it("labels nothing without capabilities", () => {
    expect(cpuLabels(NO_CAPABILITIES)).toEqual({});
  });
});

describe("loadHostCapabilities", () => {
  it("reads the volume the init container wrote", async () => {
    const loaded = await loadHostCapabilities(TCG_VOLUME);
    expect(loaded.hostCpuModel?.name).toBe("EPYC");
    expect(loaded.supportedFeatures).toContain("apic");
  });

  it("finds nothing where no volume is, and fails on a host model without a model", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "node-labeller-"));
    await expect(loadHostCapabilities(path.join(dir, "absent"))).resolves.toEqual(NO_CAPABILITIES);
    await writeFile(
      path.join(dir, "virsh_domcapabilities.xml"),
      domCapabilities(`<mode name='host-model'/>`),
    );
    await expect(loadHostCapabilities(dir)).rejects.toThrow("host model mode is expected to contain a model");
  });
});
