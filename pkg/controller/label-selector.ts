// metav1.LabelSelector and its evaluation, with the semantics of apimachinery's LabelSelectorAsSelector:
// a missing selector selects nothing, an empty one selects everything. Node selector requirements
// (core/v1 NodeSelectorRequirement) read as labels too, with their two numeric operators Gt and Lt.

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export type Operator = "=" | "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt";

export interface Requirement {
  key: string;
  operator: Operator;
  values: readonly string[];
}

const labelSelectorOperators: readonly string[] = ["In", "NotIn", "Exists", "DoesNotExist"];
const nodeSelectorOperators: readonly string[] = [...labelSelectorOperators, "Gt", "Lt"];

const isInteger = (value: string): boolean => /^[+-]?\d+$/.test(value);

function validated(req: LabelSelectorRequirement, operators: readonly string[]): Requirement {
  if (!operators.includes(req.operator))
    throw new Error(`"${req.operator}" is not a valid label selector operator`);
  const operator = req.operator as Operator;
  const values = [...(req.values ?? [])].sort();
  if (operator === "Gt" || operator === "Lt") {
    if (values.length !== 1) {
      throw new Error(`values: Invalid value: for 'Gt', 'Lt' operators, exactly one value is required`);
    }
    if (!values.every(isInteger)) {
      throw new Error(`values[0]: Invalid value: for 'Gt', 'Lt' operators, the value must be an integer`);
    }
    return { key: req.key, operator, values };
  }
  const needsValues = operator === "In" || operator === "NotIn";
  if (needsValues && values.length === 0) {
    throw new Error(`values: Invalid value: for 'in', 'notin' operators, values set can't be empty`);
  }
  if (!needsValues && values.length > 0) {
    throw new Error(`values: Invalid value: values set must be empty for exists and does not exist`);
  }
  return { key: req.key, operator, values };
}

/** Gt/Lt: the label must hold an integer that compares so with the requirement's one. */
function compares(value: string | undefined, req: Requirement): boolean {
  if (value === undefined || !isInteger(value)) return false;
  const have = BigInt(value);
  const want = BigInt(req.values[0] ?? "0");
  return req.operator === "Gt" ? have > want : have < want;
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
    case "Gt":
    case "Lt":
      return compares(value, req);
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
    case "Gt":
      return `${req.key}>${req.values[0] ?? ""}`;
    case "Lt":
      return `${req.key}<${req.values[0] ?? ""}`;
  }
}

const sortedByKey = (requirements: Requirement[]): Requirement[] =>
  requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

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
    const expressions = (selector.matchExpressions ?? []).map((req) =>
      validated(req, labelSelectorOperators),
    );
    return new Selector(sortedByKey([...equalities, ...expressions]), false);
  }

  /**
   * Node selector requirements (In, NotIn, Exists, DoesNotExist, Gt, Lt) as one selector over labels;
   * none at all selects everything. Throws on a bad operator or values, as apimachinery words it.
   */
  static fromNodeSelectorRequirements(requirements: readonly LabelSelectorRequirement[]): Selector {
    return new Selector(sortedByKey(requirements.map((req) => validated(req, nodeSelectorOperators))), false);
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
