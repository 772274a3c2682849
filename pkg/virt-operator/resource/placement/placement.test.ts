import type { V1PodSpec } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { DefaultPlacement, injectPlacementMetadata } from "./placement.js";

const pod = (): V1PodSpec => ({ containers: [{ name: "c" }], nodeSelector: { keep: "me" } });

describe("infrastructure placement", () => {
  it("requires control-plane nodes by default, preferring non-workers, and tolerates their taints", () => {
    const spec = pod();
    injectPlacementMetadata(undefined, spec, DefaultPlacement.RequireControlPlanePreferNonWorker);
    expect(spec.nodeSelector).toEqual({ "kubernetes.io/os": "linux", keep: "me" });
    const terms =
      spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
    expect(terms?.map((t) => t.matchExpressions?.[0]?.key)).toEqual([
      "node-role.kubernetes.io/control-plane",
      "node-role.kubernetes.io/master",
    ]);
    expect(spec.tolerations?.map((t) => t.key)).toEqual([
      "node-role.kubernetes.io/control-plane",
      "node-role.kubernetes.io/master",
    ]);
  });

  it("puts workloads (virt-handler) on any Linux node by default", () => {
    const spec = pod();
    injectPlacementMetadata(undefined, spec, DefaultPlacement.AnyNode);
    expect(spec.affinity).toBeUndefined();
    expect(spec.nodeSelector).toEqual({ "kubernetes.io/os": "linux", keep: "me" });
  });

  it("uses the CR's placement instead, without overriding the pod's own selectors", () => {
    const spec = { ...pod(), nodeSelector: { keep: "me", zone: "pod" }, tolerations: [{ key: "own" }] };
    injectPlacementMetadata(
      {
        nodePlacement: {
          nodeSelector: { zone: "cr", infra: "yes" },
          tolerations: [{ key: "cr-taint", operator: "Exists" }],
        },
      },
      spec,
      DefaultPlacement.RequireControlPlanePreferNonWorker,
    );
    expect(spec.nodeSelector).toEqual({ "kubernetes.io/os": "linux", zone: "pod", infra: "yes", keep: "me" });
    expect(spec.tolerations.map((t) => t.key)).toEqual(["own", "cr-taint"]);
    expect(spec.affinity).toBeUndefined();
  });

  it("appends the CR's affinity terms to the pod's anti-affinity", () => {
    const spec: V1PodSpec = {
      containers: [],
      affinity: {
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 1, podAffinityTerm: { topologyKey: "a" } },
          ],
        },
      },
    };
    injectPlacementMetadata(
      {
        nodePlacement: {
          affinity: {
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                { weight: 5, podAffinityTerm: { topologyKey: "b" } },
              ],
            },
          },
        },
      },
      spec,
      DefaultPlacement.AnyNode,
    );
    expect(
      spec.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.map((t) => t.weight),
    ).toEqual([1, 5]);
  });
});
