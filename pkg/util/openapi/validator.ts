// Upstream's definitions.Validator (pkg/util/openapi/openapi.go), which virt-api's expand-vm-spec runs on
// the raw body before decoding it: only the top-level keys of a Kubernetes object are allowed, `spec` is
// required and must match the kind's spec schema with no unknown fields anywhere, `status` may be null and
// may carry unknown fields, `metadata` is not looked at. The schemas are the generated ones the webhooks
// parse with; messages are kube-openapi's where the check is the same (`spec.template in body is
// required`, `.foo in body is a forbidden property`), the field errors' own text otherwise.
import type { z } from "zod";
import { FieldErrorType, Path, type FieldError } from "../../api/field.js";
import { definitionSchemas } from "../../api/generated/index.js";
import { childSchema, isDefinitionName, isUnknownMember, parseDefinition } from "../../api/parse.js";

const TOP_LEVEL_KEYS = new Set(["kind", "apiVersion", "spec", "status", "metadata"]);
const PROTO_KEY = "__proto__";

/** The kinds whose spec and status definitions are `v1.<Kind>Spec` and `v1.<Kind>Status`. */
export type ValidatedKind =
  "VirtualMachine" | "VirtualMachineInstancePreset" | "VirtualMachineInstanceMigration";

/** Upstream's Validate: every problem, as kube-openapi words it; empty when the object is valid. */
export function validateObject(kind: ValidatedKind, object: Record<string, unknown> | null): string[] {
  const fields = object ?? {};
  const problems = Object.keys(fields)
    .filter((key) => !TOP_LEVEL_KEYS.has(key))
    .map((key) => `.${key} in body is a forbidden property`);
  if (!Object.hasOwn(fields, "spec")) problems.push("spec in body is required");
  return [
    ...problems,
    ...validatePart(`v1.${kind}Spec`, "spec", fields["spec"], { nullable: false, strict: true }),
    ...validatePart(`v1.${kind}Status`, "status", fields["status"], { nullable: true, strict: false }),
  ];
}

function validatePart(
  definition: string,
  name: string,
  value: unknown,
  rules: { nullable: boolean; strict: boolean },
): string[] {
  if (value === undefined || value === null) {
    return rules.nullable ? [] : [`${name} in body must be of type object: "null"`];
  }
  if (!isDefinitionName(definition)) throw new Error(`no schema for ${definition}`);
  const root = Path.of(name);
  const parsed = parseDefinition(definition, value, root);
  const unknown = rules.strict ? forbiddenProperties(definitionSchemas[definition], value, root) : [];
  return [...unknown, ...(parsed.ok ? [] : parsed.errors.map(openAPIMessage))];
}

/**
 * kube-openapi's wording of the same findings. Go decodes every JSON number as a float64, so the value
 * of a wrong type is a "number", never an "integer".
 */
function openAPIMessage(error: FieldError): string {
  if (error.type === FieldErrorType.Required) return `${error.field} in body is required`;
  if (error.type === FieldErrorType.TypeInvalid) return error.detail.replace(/: "integer"$/, ': "number"');
  return error.toString();
}

/** Members the schema does not declare, as upstream's definitions all forbid additional properties. */
function forbiddenProperties(schema: z.ZodType, value: unknown, root: Path): string[] {
  const found: string[] = [];
  // An explicit stack: the input may nest as deep as JSON allows, though only the schema's depth is walked.
  const pending: { schema: z.ZodType; value: unknown; path: Path }[] = [{ schema, value, path: root }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { schema: at, value: current, path } = next;
    const children: typeof pending = [];
    if (Array.isArray(current)) {
      current.forEach((item: unknown, index) => {
        const itemSchema = childSchema(at, index);
        if (itemSchema) children.push({ schema: itemSchema, value: item, path: path.index(index) });
      });
    } else if (typeof current === "object" && current !== null) {
      for (const [key, member] of Object.entries(current)) {
        // parse() refuses `__proto__` already, with its own message.
        if (key === PROTO_KEY) continue;
        if (isUnknownMember(at, key)) {
          found.push(`${path.child(key).toString()} in body is a forbidden property`);
          continue;
        }
        const memberSchema = childSchema(at, key);
        if (memberSchema) children.push({ schema: memberSchema, value: member, path: path.child(key) });
      }
    }
    // Reversed onto the stack, so that siblings are walked in their order.
    pending.push(...children.reverse());
  }
  return found;
}
