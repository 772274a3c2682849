// Upstream pkg/instancetype/conflict: a VM field that its instance type or preference also sets, reported
// with the field's path (`VM field(s) spec.template.spec.domain.cpu.sockets conflicts with selected
// instance type`), as an error and as admission causes.
import { FieldErrorType, type Path } from "../../api/field.js";
import type { StatusCause } from "../../api/generated/k8s.js";

const conflictsMessage = (paths: string) => `VM field(s) ${paths} conflicts with selected instance type`;

export class Conflict {
  /** `message` replaces the usual wording when set. */
  constructor(
    readonly path: Path,
    readonly message = "",
  ) {}

  error(): string {
    return this.message || conflictsMessage(this.path.toString());
  }

  statusCause(): StatusCause {
    return { reason: FieldErrorType.Invalid, message: this.error(), field: this.path.toString() };
  }
}

/** One or more conflicts as one error, naming every path. */
export class Conflicts extends Error {
  constructor(readonly conflicts: readonly Conflict[]) {
    super(conflictsMessage(conflicts.map((conflict) => conflict.path.toString()).join(", ")));
    this.name = "Conflicts";
  }

  statusCauses(): StatusCause[] {
    return this.conflicts.map((conflict) => conflict.statusCause());
  }
}
