import { beforeAll, describe, expect, it } from "vitest";
import type { CustomizeComponents, CustomizeComponentsPatch } from "../../../api/generated/v1.js";
import { parseVirtControllerFlags } from "../../../virt-controller/flags.js";
import { parseVirtHandlerFlags } from "../../../virt-handler/flags.js";
import type { KubeVirtCR } from "../../cluster.js";
import { targetConfigFromKubeVirt } from "../../util/config.js";
import { newApiServerDeployment, newControllerDeployment } from "../generate/components/deployments.js";
import { newHandlerDaemonSet } from "../generate/components/daemonsets.js";
import type { DaemonSet, Deployment, Service } from "../generate/components/k8s-types.js";
import { newApiServerService } from "../generate/components/services.js";
import {
  applyCustomizations,
  applyPatch,
  customizationsHash,
  flagsToArray,
  flagsToPatches,
  newCustomizer,
  patchesForResource,
  replicasAlreadyPatched,
} from "./patches.js";

const HASH_ANNOTATION = "kubevirt.io/customizer-identifier";
const kv: KubeVirtCR = { metadata: { name: "kubevirt", namespace: "kubevirt" }, spec: {} };
const config = targetConfigFromKubeVirt(kv, { VIRT_OPERATOR_IMAGE: "reg/virt-operator:v1" });
let api: Deployment;
let controller: Deployment;
let handler: DaemonSet;
let service: Service;
beforeAll(() => {
  api = newApiServerDeployment(config, {});
  controller = newControllerDeployment(config, {});
  handler = newHandlerDaemonSet(config, {});
  service = newApiServerService("kubevirt");
});

const patch = (
  resourceType: string,
  resourceName: string,
  type: string,
  body: unknown,
): CustomizeComponentsPatch => ({ resourceType, resourceName, type, patch: JSON.stringify(body) });

const containerOf = (obj: Deployment | DaemonSet) => obj.spec.template.spec?.containers[0];

describe("customizeComponents flags", () => {
  const flags = {
    "flag-one": "1",
    flag: "3",
    "bool-flag": "",
    "bool-flag-true": "True",
    "bool-flag-false": "false",
  };

  it("turns flags into arguments in name order: pairs, bare names, name=bool, lowercased", () => {
    expect(flagsToArray(flags)).toEqual([
      "--bool-flag",
      "--bool-flag-false=false",
      "--bool-flag-true=true",
      "--flag",
      "3",
      "--flag-one",
      "1",
    ]);
  });

  it("makes one strategic patch per component with flags, none for an empty map", () => {
    const patches = flagsToPatches({ api: flags, controller: {}, handler: { v: "4" } });
    expect(patches.map((p) => [p.resourceType, p.resourceName, p.type])).toEqual([
      ["Deployment", "virt-api", "strategic"],
      ["DaemonSet", "virt-handler", "strategic"],
    ]);
    expect(flagsToPatches(undefined)).toEqual([]);
  });

  it("puts the flags after the binary in the component's command and keeps the operator's args", () => {
    const customizer = newCustomizer({ flags: { controller: { "node-heartbeat-timeout": "60s", v: "4" } } });
    const [patched] = applyCustomizations(customizer, [controller]);
    expect(containerOf(patched!)?.command).toEqual([
      "virt-controller",
      "--node-heartbeat-timeout",
      "60s",
      "--v",
      "4",
    ]);
    expect(containerOf(patched!)?.args).toEqual(containerOf(controller)?.args);
    expect(containerOf(patched!)?.image).toBe(containerOf(controller)?.image);
  });

  it("reaches the components' own flag parsers, beside the operator's arguments", () => {
    const customizer = newCustomizer({
      flags: { controller: { "node-heartbeat-timeout": "60s" }, handler: { "heartbeat-interval": "10s" } },
    });
    const [patchedController] = applyCustomizations(customizer, [controller]);
    const [patchedHandler] = applyCustomizations(customizer, [handler]);
    const argv = (obj: Deployment | DaemonSet) => {
      const container = containerOf(obj)!;
      return [...(container.command ?? []).slice(1), ...(container.args ?? [])];
    };
    const controllerFlags = parseVirtControllerFlags(argv(patchedController!));
    expect(controllerFlags.nodeHeartbeatTimeoutMs).toBe(60_000);
    expect(controllerFlags.launcher.launcherImage).toBe(
      parseVirtControllerFlags(argv(controller)).launcher.launcherImage,
    );
    expect(parseVirtHandlerFlags(argv(patchedHandler!)).heartbeatIntervalMs).toBe(10_000);
  });

  it("replaces the flags of an earlier customization instead of adding to them", () => {
    const first = applyCustomizations(newCustomizer({ flags: { handler: { a: "1", b: "2" } } }), [handler]);
    const second = applyCustomizations(newCustomizer({ flags: { handler: { b: "3" } } }), first);
    expect(containerOf(second[0]!)?.command).toEqual(["virt-handler", "--b", "3"]);
  });

  it("only patches the component the flags are for", () => {
    const customizer = newCustomizer({ flags: { handler: { v: "4" } } });
    const [apiPatched, controllerPatched] = applyCustomizations(customizer, [api, controller]);
    expect(containerOf(apiPatched!)?.command).toEqual(["virt-api"]);
    expect(containerOf(controllerPatched!)?.command).toEqual(["virt-controller"]);
  });
});

describe("customizeComponents patches", () => {
  it("applies a JSON patch and a merge patch to the named resource only", () => {
    const customizer = newCustomizer({
      patches: [
        patch("Deployment", "virt-api", "json", [{ op: "replace", path: "/spec/replicas", value: 5 }]),
        patch("Service", "virt-api", "merge", { metadata: { labels: { extra: "yes" } } }),
      ],
    });
    const [apiPatched, controllerPatched] = applyCustomizations(customizer, [api, controller]);
    const [servicePatched] = applyCustomizations(customizer, [service]);
    expect(apiPatched?.spec.replicas).toBe(5);
    expect(controllerPatched?.spec.replicas).toBe(controller.spec.replicas);
    expect(servicePatched?.metadata?.labels?.["extra"]).toBe("yes");
    expect(apiPatched?.metadata?.labels?.["extra"]).toBeUndefined();
    expect(api.spec.replicas).toBe(2);
  });

  it("merges lists by their merge key in a strategic patch to every Deployment ('*')", () => {
    const customizer = newCustomizer({
      patches: [
        patch("Deployment", "*", "strategic", {
          spec: { template: { spec: { imagePullSecrets: [{ name: "image-pull" }] } } },
        }),
        patch("Deployment", "virt-controller", "strategic", {
          spec: {
            template: {
              spec: { containers: [{ name: "virt-controller", env: [{ name: "X", value: "1" }] }] },
            },
          },
        }),
      ],
    });
    const [apiPatched, controllerPatched] = applyCustomizations(customizer, [api, controller]);
    expect(apiPatched?.spec.template.spec?.imagePullSecrets).toEqual([{ name: "image-pull" }]);
    expect(controllerPatched?.spec.template.spec?.imagePullSecrets).toEqual([{ name: "image-pull" }]);
    const container = containerOf(controllerPatched!)!;
    expect(container.env).toContainEqual({ name: "X", value: "1" });
    expect(container.ports).toEqual(containerOf(controller)?.ports);
    expect(container.image).toBe(containerOf(controller)?.image);
  });

  it.each([
    ["*", "Deployment", "virt-api", true],
    ["deployment", "Deployment", "virt-api", true],
    ["Service", "Deployment", "virt-api", false],
  ])("resourceType %s matches kind %s: %s", (resourceType, kind, name, matches) => {
    const customizer = newCustomizer({ patches: [patch(resourceType, "VIRT-API", "merge", {})] });
    expect(patchesForResource(customizer, kind, name)).toHaveLength(matches ? 1 : 0);
  });

  it("applies the CR's patches shortest first, as upstream's hashing sort leaves them", () => {
    const long = patch("Deployment", "virt-api", "merge", { metadata: { labels: { pick: "the-long-one" } } });
    const short = patch("Deployment", "virt-api", "merge", { metadata: { labels: { pick: "short" } } });
    const [patched] = applyCustomizations(newCustomizer({ patches: [long, short] }), [api]);
    expect(patched?.metadata?.labels?.["pick"]).toBe("the-long-one");
  });

  it("refuses a patch type it does not know, in upstream's words", () => {
    expect(() => applyPatch(api, patch("Deployment", "virt-api", "yaml", {}))).toThrow(
      "PatchType is not supported",
    );
  });
});

describe("customizer identifier", () => {
  const labelPatch = (name: string, label: string) =>
    patch("Deployment", name, "strategic", { metadata: { labels: { [label]: "x" } } });

  it("is upstream's SHA-1 of the customizations as Go marshals them", () => {
    // Computed with upstream's getHash (encoding/json, crypto/sha1) over the same values.
    expect(customizationsHash({})).toBe("bf21a9e8fbc5a3846fb05b4fa0859e0917b2202f");
    const customizations: CustomizeComponents = {
      patches: [
        {
          resourceName: "virt-controller",
          resourceType: "Deployment",
          patch: '{"metadata":{"labels":{"a":"<b&c>"}}}',
          type: "strategic",
        },
        { resourceName: "*", resourceType: "Service", patch: '[{"op":"add"}]', type: "json" },
      ],
      flags: { controller: { v: "4", "node-heartbeat-timeout": "60s" }, handler: {} },
    };
    expect(customizationsHash(customizations)).toBe("e5e173c0259cd5087655eb42c6750f73c1f3f626");
  });

  it("does not depend on the order of the patches, and changes with the flags", () => {
    const a = labelPatch("virt-controller", "new-key");
    const b = labelPatch("virt-api", "my-custom-label");
    expect(newCustomizer({ patches: [a, b] }).hash).toBe(newCustomizer({ patches: [b, a] }).hash);
    expect(newCustomizer({ flags: { api: { v: "4" } } }).hash).not.toBe(
      newCustomizer({ flags: { api: { v: "1" } } }).hash,
    );
  });

  it("annotates every customized object, patched or not, and changes when the customizations change", () => {
    const before = applyCustomizations(newCustomizer({}), [api, service]);
    const after = applyCustomizations(newCustomizer({ flags: { api: { v: "4" } } }), [api, service]);
    for (const obj of [...before, ...after])
      expect(obj.metadata?.annotations?.[HASH_ANNOTATION]).toBeDefined();
    expect(after[0]?.metadata?.annotations?.[HASH_ANNOTATION]).not.toBe(
      before[0]?.metadata?.annotations?.[HASH_ANNOTATION],
    );
  });
});

describe("replicasAlreadyPatched", () => {
  it.each<[string, CustomizeComponentsPatch[], boolean]>([
    [
      "a JSON patch replacing virt-api's replicas",
      [patch("Deployment", "virt-api", "json", [{ op: "replace", path: "/spec/replicas", value: 3 }])],
      true,
    ],
    [
      "one for another Deployment",
      [patch("Deployment", "virt-controller", "json", [{ op: "replace", path: "/spec/replicas", value: 3 }])],
      false,
    ],
    [
      "one adding replicas",
      [patch("Deployment", "virt-api", "json", [{ op: "add", path: "/spec/replicas", value: 3 }])],
      false,
    ],
    [
      "a merge patch setting them",
      [patch("Deployment", "virt-api", "merge", { spec: { replicas: 3 } })],
      false,
    ],
  ])("%s: %s", (_name, patches, expected) => {
    expect(replicasAlreadyPatched(patches, "virt-api")).toBe(expected);
  });
});
