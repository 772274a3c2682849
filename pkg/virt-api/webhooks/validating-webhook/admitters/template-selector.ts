// What upstream's replica set and pool admitters both demand of `spec.selector`: it parses, and it
// selects the labels of the template it creates from (else the controller would not see its own).
import { Selector, type LabelSelector } from "../../../../controller/label-selector.js";
import { errorMessage } from "../../../../util/error-message.js";
import { invalidCause, type Path, type StatusCause } from "../../../../api/causes.js";

export function validateTemplateSelector(
  field: Path,
  selector: LabelSelector | null | undefined,
  templateLabels: Record<string, string> | undefined,
): StatusCause[] {
  const at = field.child("selector");
  let parsed: Selector;
  try {
    // A missing selector selects nothing, so it cannot match the template either.
    parsed = Selector.fromLabelSelector(selector);
  } catch (error) {
    return [invalidCause(errorMessage(error), at)];
  }
  if (parsed.matches(templateLabels)) return [];
  return [invalidCause("selector does not match labels.", at)];
}
