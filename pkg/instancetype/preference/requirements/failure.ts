// A preference requirement the VM does not meet: the fields at fault (upstream's conflict.Conflicts,
// joined with ", " into the admission cause's field) and upstream's message.
import type { Path } from "../../../api/field.js";

export class RequirementFailure extends Error {
  constructor(
    readonly paths: readonly Path[],
    message: string,
  ) {
    super(message);
    this.name = "RequirementFailure";
  }

  /** Upstream's Conflicts.String(). */
  fields(): string {
    return this.paths.map((path) => path.toString()).join(", ");
  }
}
