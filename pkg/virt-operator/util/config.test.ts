import { describe, expect, it } from "vitest";
import type { KubeVirtCR } from "../cluster.js";
import {
  componentImage,
  imagePullPolicyOf,
  setTargetDeploymentConfig,
  targetConfigFromKubeVirt,
} from "./config.js";

const kv = (spec: KubeVirtCR["spec"] = {}): KubeVirtCR => ({
  metadata: { name: "kubevirt", namespace: "kubevirt" },
  spec,
});

describe("deployment config", () => {
  it.each<
    [string, Record<string, string>, KubeVirtCR["spec"], { registry: string; tag: string; prefix?: string }]
  >([
    [
      "the operator's image",
      { VIRT_OPERATOR_IMAGE: "kubevirt-ts.local/virt-operator:devel" },
      {},
      { registry: "kubevirt-ts.local", tag: "devel" },
    ],
    [
      "a registry with a port and a prefix",
      { VIRT_OPERATOR_IMAGE: "reg:5000/org/kv-virt-operator:v1" },
      {},
      { registry: "reg:5000/org", tag: "v1", prefix: "kv-" },
    ],
    ["no tag", { VIRT_OPERATOR_IMAGE: "reg/virt-operator" }, {}, { registry: "reg", tag: "latest" }],
    [
      "a digest: KUBEVIRT_VERSION",
      { VIRT_OPERATOR_IMAGE: "reg/virt-operator@sha256:abc", KUBEVIRT_VERSION: "v3" },
      {},
      { registry: "reg", tag: "v3" },
    ],
    [
      "the CR's registry and tag",
      { VIRT_OPERATOR_IMAGE: "reg/virt-operator:v1" },
      { imageRegistry: "other", imageTag: "v2" },
      { registry: "other", tag: "v2" },
    ],
  ])("takes registry and tag from %s", (_name, env, spec, expected) => {
    const config = targetConfigFromKubeVirt(kv(spec), env);
    expect(config.registry).toBe(expected.registry);
    expect(config.kubeVirtVersion).toBe(expected.tag);
    expect(config.imagePrefix).toBe(expected.prefix ?? "");
  });

  it("names images <registry>/<prefix><component>:<tag> unless overridden", () => {
    const env = {
      VIRT_OPERATOR_IMAGE: "reg/virt-operator:v1",
      VIRT_HANDLER_IMAGE: "elsewhere/handler@sha256:1",
    };
    const config = targetConfigFromKubeVirt(kv(), env);
    expect(componentImage(config, "virt-api", config.virtApiImage)).toBe("reg/virt-api:v1");
    expect(componentImage(config, "virt-handler", config.virtHandlerImage)).toBe(
      "elsewhere/handler@sha256:1",
    );
  });

  it("identifies an install by everything that shapes it", () => {
    const env = { VIRT_OPERATOR_IMAGE: "reg/virt-operator:v1" };
    const a = targetConfigFromKubeVirt(kv(), env);
    expect(targetConfigFromKubeVirt(kv(), env).id).toBe(a.id);
    expect(targetConfigFromKubeVirt(kv({ imagePullPolicy: "Always" }), env).id).not.toBe(a.id);
    expect(imagePullPolicyOf(targetConfigFromKubeVirt(kv({ imagePullPolicy: "Always" }), env))).toBe(
      "Always",
    );
    expect(imagePullPolicyOf(a)).toBe("IfNotPresent");
  });

  it("records the target in the status", () => {
    const config = targetConfigFromKubeVirt(kv(), { VIRT_OPERATOR_IMAGE: "reg/virt-operator:v1" });
    const status = {};
    setTargetDeploymentConfig(status, config);
    expect(status).toMatchObject({
      targetKubeVirtVersion: "v1",
      targetKubeVirtRegistry: "reg",
      targetDeploymentID: config.id,
    });
  });
});
