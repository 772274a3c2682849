// What a reconcile pass works with: the KubeVirt CR (a working copy whose status it updates), the stores
// it reads, the client it writes with, and the expectations it raises before each write.
import type { KubeVirtCR as KubeVirt } from "../../cluster.js";
import type { Clock } from "../../../controller/clock.js";
import type { Logger } from "../../../controller/log.js";
import type { OperatorClient, Stores } from "../../cluster.js";
import type { OperatorExpectations } from "../../expectations.js";
import type { InstallTarget } from "./metadata.js";

export interface ReconcileContext {
  kv: KubeVirt;
  kvKey: string;
  target: InstallTarget;
  client: OperatorClient;
  stores: Stores;
  expectations: OperatorExpectations;
  clock: Clock;
  logger: Logger;
  /** Asks for another sync within `ms` (certificate renewal, CA overlap end). */
  requeueAfter(ms: number): void;
}
