// One set of expectations per installed kind, keyed by the KubeVirt CR (upstream's util.Expectations): a
// sync that created or deleted objects waits until the informers have seen every one of them.
import type { Clock } from "../controller/clock.js";
import { ControllerExpectations, UIDTrackingControllerExpectations } from "../controller/expectations.js";
import type { Logger } from "../controller/log.js";
import { OPERATOR_RESOURCES, type OperatorResource } from "./resources.js";

export type OperatorExpectations = Record<OperatorResource, UIDTrackingControllerExpectations>;

export function newOperatorExpectations(clock?: Clock, logger?: Logger): OperatorExpectations {
  const entries = (Object.keys(OPERATOR_RESOURCES) as OperatorResource[]).map((resource) => [
    resource,
    new UIDTrackingControllerExpectations(new ControllerExpectations(resource, clock, logger), logger),
  ]);
  return Object.fromEntries(entries) as OperatorExpectations;
}

function each(expectations: OperatorExpectations): UIDTrackingControllerExpectations[] {
  return Object.values(expectations);
}

export function expectationsSatisfied(expectations: OperatorExpectations, key: string): boolean {
  return each(expectations).every((e) => e.satisfiedExpectations(key));
}

/** Starts a sync from zero, so that each write can raise its own expectation. */
export function resetExpectations(expectations: OperatorExpectations, key: string): void {
  for (const e of each(expectations)) e.expectations.setExpectations(key, 0, 0);
}

export function deleteExpectations(expectations: OperatorExpectations, key: string): void {
  for (const e of each(expectations)) e.deleteExpectations(key);
}
