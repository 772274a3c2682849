// metav1.LabelSelector and its evaluation, with the semantics of apimachinery's LabelSelectorAsSelector:
// a missing selector selects nothing, an empty one selects everything.

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export type Operator = "=" | "In" | "NotIn" | "Exists" | "DoesNotExist";

export interface Requirement {
  key: string;
  operator: Operator;
  values: readonly string[];
}

const operators: readonly string[] = ["In", "NotIn", "Exists", "DoesNotExist"];

function validated(req: LabelSelectorRequirement): Requirement {
  if (!operators.includes(req.operator))
    throw new Error(`"${req.operator}" is not a valid label selector operator`);
  const operator = req.operator as Operator;
  const values = [...(req.values ?? [])].sort();
  const needsValues = operator === "In" || operator === "NotIn";
  if (needsValues && values.length === 0) {
    throw new Error(`values: Invalid value: for 'in', 'notin' operators, values set can't be empty`);
  }
  if (!needsValues && values.length > 0) {
    throw new Error(`values: Invalid value: values set must be empty for exists and does not exist`);
  }
  return { key: req.key, operator, values };
}

function requirementMatches(req: Requirement, labels: Record<string, string>): boolean {
  const present = Object.prototype.hasOwnProperty.call(labels, req.key);
  const value = present ? labels[req.key] : undefined;
  switch (req.operator) {
    case "=":
    case "In":
      return value !== undefined && req.values.includes(value);
    case "NotIn":
      return value === undefined || !req.values.includes(value);
    case "Exists":
      return present;
    case "DoesNotExist":
      return !present;
  }
}

function requirementString(req: Requirement): string {
  switch (req.operator) {
    case "=":
      return `${req.key}=${req.values[0] ?? ""}`;
    case "In":
      return `${req.key} in (${req.values.join(",")})`;
    case "NotIn":
      return `${req.key} notin (${req.values.join(",")})`;
    case "Exists":
      return req.key;
    case "DoesNotExist":
      return `!${req.key}`;
  }
}

export class Selector {
  private constructor(
    readonly requirements: readonly Requirement[],
    /** True only for the selector of a missing (null) LabelSelector. */
    readonly selectsNothing: boolean,
  ) {}

  static everything(): Selector {
    return new Selector([], false);
  }

  static nothing(): Selector {
    return new Selector([], true);
  }

  /** Equality on every given label (labels.SelectorFromSet). */
  static fromLabels(labels: Record<string, string>): Selector {
    return Selector.fromLabelSelector({ matchLabels: labels });
  }

  /** Throws on an invalid operator or values, with apimachinery's wording. */
  static fromLabelSelector(selector: LabelSelector | null | undefined): Selector {
    if (!selector) return Selector.nothing();
    const equalities = Object.entries(selector.matchLabels ?? {}).map(([key, value]): Requirement => ({
      key,
      operator: "=",
      values: [value],
    }));
    const expressions = (selector.matchExpressions ?? []).map(validated);
    const all = [...equalities, ...expressions].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return new Selector(all, false);
  }

  matches(labels: Record<string, string> | undefined): boolean {
    if (this.selectsNothing) return false;
    return this.requirements.every((req) => requirementMatches(req, labels ?? {}));
  }

  isEverything(): boolean {
    return !this.selectsNothing && this.requirements.length === 0;
  }

  /** The query-string form (`a=b,c in (x,y),!d`) the apiserver's labelSelector parameter accepts. */
  toString(): string {
    return this.requirements.map(requirementString).join(",");
  }
}
