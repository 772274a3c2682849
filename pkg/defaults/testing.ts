// Helpers for the defaulting tests (not used by production code).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import type {
  KubeVirtConfiguration,
  VirtualMachineInstance,
  VirtualMachineInstanceSpec,
} from "../api/generated/v1.js";
import { ClusterConfig } from "../virt-config/cluster-config.js";

export const FIXED_UUID = "00000000-0000-4000-8000-000000000001";
export const fixedUUID = (): string => FIXED_UUID;

/** A cluster whose KubeVirt CR carries `configuration` (the defaults when empty). */
export function clusterWith(configuration: KubeVirtConfiguration = {}): ClusterConfig {
  const config = ClusterConfig.fromKubeVirt({
    metadata: { name: "kubevirt", namespace: "kubevirt" },
    spec: { configuration },
    status: { phase: "Deployed", defaultArchitecture: "amd64" },
  });
  if (config.invalidReason !== undefined)
    throw new Error(`test configuration refused: ${config.invalidReason}`);
  return config;
}

/** The smallest VMI the API accepts, with `spec` merged over it. */
export function minimalVMI(spec: Partial<VirtualMachineInstanceSpec> = {}): VirtualMachineInstance {
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: { name: "testvmi", namespace: "default" },
    spec: { domain: { devices: {} }, ...spec },
  };
}

type PathSegment = string | number;

function valueAtSegments(root: unknown, segments: readonly PathSegment[]): unknown {
  let current: unknown = root;
  for (const step of segments) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[step];
  }
  return current;
}

/** The value at a path like `spec.domain.devices.disks[0].name` (undefined when any step is missing). */
export function valueAt(root: unknown, path: string): unknown {
  return valueAtSegments(root, path.match(/[^.[\]]+/g) ?? []);
}

/** Every leaf of a JSON value with its path; empty objects and arrays count as leaves. */
export function leaves(value: unknown): Array<[PathSegment[], unknown]> {
  const found: Array<[PathSegment[], unknown]> = [];
  const visit = (node: unknown, path: PathSegment[]): void => {
    if (Array.isArray(node) && node.length > 0) node.forEach((item, index) => visit(item, [...path, index]));
    else if (typeof node === "object" && node !== null && Object.keys(node).length > 0) {
      for (const [key, child] of Object.entries(node)) visit(child, [...path, key]);
    } else if (node !== undefined) found.push([path, node]); // JSON has no undefined members
  };
  visit(value, []);
  return found;
}

function formatPath(path: readonly PathSegment[]): string {
  return path
    .map((step) => (typeof step === "number" ? `[${step}]` : `.${step}`))
    .join("")
    .replace(/^\./, "");
}

/** Leaves of `before` that `after` lost or changed (an empty container may gain members). */
export function lostOrChangedLeaves(before: unknown, after: unknown): string[] {
  const problems: string[] = [];
  for (const [path, value] of leaves(before)) {
    const now = valueAtSegments(after, path);
    const emptyContainer = typeof value === "object" && value !== null;
    const kept = emptyContainer ? typeof now === "object" && now !== null : Object.is(now, value);
    if (!kept) problems.push(`${formatPath(path)}: ${JSON.stringify(value)} → ${JSON.stringify(now)}`);
  }
  return problems;
}

const EXAMPLES_DIR = join(import.meta.dirname, "../../test/conformance/upstream-examples");

export interface UpstreamExample {
  /** file#document */
  name: string;
  object: Record<string, unknown>;
}

/** Every object document of upstream's examples, in file order. */
export function loadUpstreamExamples(): UpstreamExample[] {
  const examples: UpstreamExample[] = [];
  for (const file of readdirSync(EXAMPLES_DIR)
    .filter((name) => name.endsWith(".yaml"))
    .sort()) {
    parseAllDocuments(readFileSync(join(EXAMPLES_DIR, file), "utf8")).forEach((document, index) => {
      const object: unknown = document.toJSON();
      if (typeof object === "object" && object !== null && !Array.isArray(object)) {
        examples.push({ name: `${file}#${index}`, object: object as Record<string, unknown> });
      }
    });
  }
  return examples;
}
