// The pool controller's expectations: upstream's UID-tracking ones, with one difference. Upstream raises
// the creations it expects only when some expectation is already pending, so the first scale-out of a
// pool (and each one after all were observed) is not waited for, and a cache that lags behind makes the
// next sync try the same names again. Here the creations are always recorded: added to what is pending,
// or expected afresh once nothing is.
import {
  ControllerExpectations,
  UIDTrackingControllerExpectations,
} from "../../../controller/expectations.js";

export class PoolExpectations extends UIDTrackingControllerExpectations {
  constructor() {
    super(new ControllerExpectations("pools"));
  }

  addExpectedCreations(key: string, count: number): void {
    if (this.satisfiedExpectations(key)) this.expectations.setExpectations(key, count, 0);
    else this.raiseExpectations(key, count, 0);
  }

  expectCreation(key: string): void {
    this.addExpectedCreations(key, 1);
  }
}
