import { readFile } from "node:fs/promises";
import path from "node:path";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import {
  CPUFeatureLabel,
  CPUModelLabel,
  CPUModelVendorLabel,
  HostModelCPULabel,
  HostModelRequiredFeaturesLabel,
  NodeHostModelIsObsoleteLabel,
  SupportedHostModelMigrationCPU,
} from "../../util/constants.js";

// What libvirt says the node offers VMs, as virt-handler's init container (cmd/virt-launcher/node-labeller)
// left it in the node-labeller volume, read as upstream's node labeller reads it: the host-model CPU
// (name, fallback, required features) and vendor from the domain capabilities, the usable and known
// named models, and the features hypervisor-cpu-baseline lists as required. From these come the
// host-model and CPU labels upstream puts on the Node, and the host CPU model the migration conditions
// ask about.

export const NODE_LABELLER_VOLUME_PATH = "/var/lib/kubevirt-node-labeller";
export const DOM_CAPABILITIES_FILE = "virsh_domcapabilities.xml";
export const SUPPORTED_FEATURES_FILE = "supported_features.xml";

const DEFAULT_VENDOR = "Intel";

/** Upstream's DefaultObsoleteCPUModels: named models left unlabelled when the cluster names none. */
export const DEFAULT_OBSOLETE_CPU_MODELS: ReadonlySet<string> = new Set(
  [
    "486",
    "pentium",
    "pentium2",
    "pentium3",
    "pentiumpro",
    "coreduo",
    "n270",
    "core2duo",
    "Conroe",
    "athlon",
    "phenom",
    "qemu64",
    "qemu32",
    "kvm64",
    "kvm32",
    "Opteron_G1",
    "Opteron_G2",
  ].flatMap((model) => [model, `${model}-v1`]),
);

export interface HostCpuModel {
  name: string;
  fallback: string;
  requiredFeatures: string[];
}

export interface HostCapabilities {
  /** Absent where libvirt offers no host-model mode. */
  hostCpuModel?: HostCpuModel;
  vendor: string;
  usableModels: string[];
  knownModels: string[];
  supportedFeatures: string[];
}

export const NO_CAPABILITIES: HostCapabilities = {
  vendor: "",
  usableModels: [],
  knownModels: [],
  supportedFeatures: [],
};

type XmlNode = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  textNodeName: "#text",
  parseAttributeValue: false,
  parseTagValue: false,
  // Text-only elements (<model>EPYC</model>) stay objects, so their attributes and text read alike.
  alwaysCreateTextNode: true,
  isArray: (name) => name === "mode" || name === "model" || name === "feature",
});

const nodes = (value: unknown): XmlNode[] =>
  Array.isArray(value)
    ? value.filter((item): item is XmlNode => typeof item === "object" && item !== null)
    : [];
const text = (value: unknown): string => {
  if (typeof value === "string") return value.trim();
  if (typeof value === "object" && value !== null) return String((value as XmlNode)["#text"] ?? "").trim();
  return "";
};
const attr = (node: XmlNode, name: string): string => String(node[`@${name}`] ?? "");

/** The parser reads what it can of broken XML; a truncated file must fail as upstream's Unmarshal does. */
function parseXml(xml: string, file: string): XmlNode {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new Error(`failed to parse ${file}: ${valid.err.msg} (line ${valid.err.line})`);
  return parser.parse(xml) as XmlNode;
}

/** The domain capabilities' CPU modes, as upstream's loadDomCapabilities reads them. */
export function parseDomCapabilities(
  xml: string,
): Omit<HostCapabilities, "supportedFeatures"> & { hostModelError?: string } {
  const root = parseXml(xml, DOM_CAPABILITIES_FILE)["domainCapabilities"];
  const cpu = typeof root === "object" && root !== null ? (root as XmlNode)["cpu"] : undefined;
  const modes = nodes(typeof cpu === "object" && cpu !== null ? (cpu as XmlNode)["mode"] : undefined);
  const result: ReturnType<typeof parseDomCapabilities> = { vendor: "", usableModels: [], knownModels: [] };
  for (const mode of modes) {
    const models = nodes(mode["model"]);
    if (attr(mode, "name") === "host-model") {
      result.vendor = text(mode["vendor"]) || DEFAULT_VENDOR;
      const [first] = models;
      if (!first) {
        result.hostModelError = "host model mode is expected to contain a model";
      } else {
        result.hostCpuModel = {
          name: text(first),
          fallback: attr(first, "fallback"),
          requiredFeatures: nodes(mode["feature"])
            .filter((feature) => attr(feature, "policy") === "require")
            .map((feature) => attr(feature, "name")),
        };
      }
    }
    for (const model of models) {
      const name = text(model);
      const usable = attr(model, "usable");
      if (usable === "" || name === "") continue;
      result.knownModels.push(name);
      if (usable !== "no") result.usableModels.push(name);
    }
  }
  return result;
}

/** hypervisor-cpu-baseline's features that the host requires (amd64's policy), as upstream reads them. */
export function parseSupportedFeatures(xml: string): string[] {
  const cpu = parseXml(xml, SUPPORTED_FEATURES_FILE)["cpu"];
  const features = nodes(typeof cpu === "object" && cpu !== null ? (cpu as XmlNode)["feature"] : undefined);
  return features.filter((feature) => attr(feature, "policy") === "require").map((f) => attr(f, "name"));
}

/**
 * Reads the node-labeller volume. A missing volume (a handler run outside its DaemonSet) yields no
 * capabilities; a present but unreadable file is an error, as upstream fails its labeller.
 */
export async function loadHostCapabilities(dir = NODE_LABELLER_VOLUME_PATH): Promise<HostCapabilities> {
  const read = (file: string) =>
    readFile(path.join(dir, file), "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    });
  const [domCapabilities, features] = await Promise.all([
    read(DOM_CAPABILITIES_FILE),
    read(SUPPORTED_FEATURES_FILE),
  ]);
  if (domCapabilities === undefined) return NO_CAPABILITIES;
  const { hostModelError, ...parsed } = parseDomCapabilities(domCapabilities);
  if (hostModelError) throw new Error(hostModelError);
  return { ...parsed, supportedFeatures: features === undefined ? [] : parseSupportedFeatures(features) };
}

/**
 * Upstream's prepareLabels for the CPU: features, named models, and the host model with its vendor.
 * `obsoleteModels` is the KubeVirt CR's obsoleteCPUModels: a model named there counts as obsolete
 * whatever its value, as upstream reads the map; without it the default list filters named models only.
 */
export function cpuLabels(
  capabilities: HostCapabilities,
  obsoleteModels?: Readonly<Record<string, boolean>>,
): Record<string, string> {
  const labels: Record<string, string> = {};
  const named = obsoleteModels ? new Set(Object.keys(obsoleteModels)) : DEFAULT_OBSOLETE_CPU_MODELS;
  const current = (model: string) => !named.has(model);
  for (const feature of capabilities.supportedFeatures) labels[CPUFeatureLabel + feature] = "true";
  for (const model of capabilities.usableModels.filter(current)) labels[CPUModelLabel + model] = "true";
  for (const model of capabilities.knownModels.filter(current))
    labels[SupportedHostModelMigrationCPU + model] = "true";
  const host = capabilities.hostCpuModel;
  if (host) {
    if (obsoleteModels && Object.hasOwn(obsoleteModels, host.name))
      labels[NodeHostModelIsObsoleteLabel] = "true";
    for (const feature of host.requiredFeatures) labels[HostModelRequiredFeaturesLabel + feature] = "true";
    labels[CPUModelVendorLabel + capabilities.vendor] = "true";
    labels[HostModelCPULabel + host.name] = "true";
  }
  return labels;
}
