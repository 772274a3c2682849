// A ReconcileContext over a FakeCluster for unit tests of the apply functions.
import { silentLogger } from "../../controller/log.js";
import { systemClock, type Clock } from "../../controller/clock.js";
import type { KubeVirtCR } from "../cluster.js";
import { newOperatorExpectations } from "../expectations.js";
import type { ReconcileContext } from "../resource/apply/context.js";
import { targetOf } from "../resource/apply/metadata.js";
import { generateInstallStrategy, type InstallStrategy } from "../resource/generate/install/strategy.js";
import { targetConfigFromKubeVirt } from "../util/config.js";
import { loadSwagger } from "../util/swagger.js";
import type { FakeCluster } from "./fake-cluster.js";

export interface TestContext extends ReconcileContext {
  /** Every requeueAfter asked for during the pass. */
  requeues: number[];
}

export function testContext(cluster: FakeCluster, kv: KubeVirtCR, clock: Clock = systemClock): TestContext {
  const requeues: number[] = [];
  return {
    kv,
    kvKey: `${kv.metadata?.namespace}/${kv.metadata?.name}`,
    target: targetOf(kv),
    client: cluster,
    stores: cluster.stores,
    expectations: newOperatorExpectations(clock, silentLogger),
    clock,
    logger: silentLogger,
    requeues,
    requeueAfter: (ms) => requeues.push(ms),
  };
}

/** A KubeVirt CR that has come as far as installing (its status names the target version and deployment). */
export function installingKubeVirt(): KubeVirtCR {
  return {
    metadata: { name: "kubevirt", namespace: "kubevirt", generation: 1 },
    spec: {},
    status: { targetKubeVirtVersion: "devel", targetKubeVirtRegistry: "r", targetDeploymentID: "id" },
  };
}

/** The install strategy generated for `kv` (slow: generate it once per file). */
export function installStrategyFor(kv: KubeVirtCR): InstallStrategy {
  return generateInstallStrategy(
    targetConfigFromKubeVirt(kv, { VIRT_OPERATOR_IMAGE: "r/virt-operator:devel" }),
    "kubevirt",
    loadSwagger(),
  );
}
