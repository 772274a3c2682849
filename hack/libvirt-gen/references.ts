// How generated code refers to a constant, type or codec from the module being written: by name,
// through the namespace import of another generated module, or (for codecs and constants the
// module defines further down, which are not initialised yet) lazily or by value.
import type { TypeSpec, Value } from "./ast.js";
import { codecName, typeName } from "./names.js";
import type { SpecModule, SymbolTable } from "./symbols.js";

const PRIMITIVE_TYPES = {
  int: "number",
  uint: "number",
  hyper: "bigint",
  uhyper: "bigint",
  float: "number",
  double: "number",
  bool: "boolean",
} as const;

const PRIMITIVE_CODECS = {
  int: "xdr.int",
  uint: "xdr.uint",
  hyper: "xdr.hyper",
  uhyper: "xdr.uhyper",
  float: "xdr.float",
  double: "xdr.double",
  bool: "xdr.bool",
} as const;

/** An integer literal as TypeScript accepts it (no legacy octal). */
export function literalText(value: Extract<Value, { kind: "literal" }>): string {
  return /^-?0[0-7]+$/.test(value.text) ? String(value.value) : value.text;
}

export class References {
  /** Other generated modules this one uses as values / only in types. */
  readonly valueImports = new Set<SpecModule>();
  readonly typeImports = new Set<SpecModule>();
  /** Index of the definition being written: same-module names at or after it are not initialised yet. */
  position = 0;

  constructor(
    private readonly symbols: SymbolTable,
    private readonly module: SpecModule,
  ) {}

  private qualify(name: string, owner: SpecModule, asValue: boolean): string {
    if (owner === this.module) return name;
    (asValue ? this.valueImports : this.typeImports).add(owner);
    return `${owner.alias}.${name}`;
  }

  private typeOwner(xdrName: string): { module: SpecModule; order: number } {
    const symbol = this.symbols.types.get(xdrName);
    if (!symbol) throw new Error(`unknown type ${xdrName}`);
    return symbol;
  }

  typeOf(type: TypeSpec): string {
    if (type.kind !== "named") return PRIMITIVE_TYPES[type.kind];
    return this.qualify(typeName(type.name), this.typeOwner(type.name).module, false);
  }

  codecOf(type: TypeSpec): string {
    if (type.kind !== "named") return PRIMITIVE_CODECS[type.kind];
    const owner = this.typeOwner(type.name);
    const reference = this.qualify(codecName(type.name), owner.module, true);
    const initialised = owner.module !== this.module || owner.order < this.position;
    return initialised ? reference : `xdr.lazy(${JSON.stringify(type.name)}, () => ${reference})`;
  }

  /** A constant in a value position: its name when it is initialised by then, else its number. */
  valueOf(value: Value): string {
    if (value.kind === "literal") return literalText(value);
    const constant = this.symbols.constants.get(value.name);
    if (!constant) throw new Error(`unknown constant ${value.name}`);
    const initialised = constant.module !== this.module || constant.order < this.position;
    return initialised ? this.qualify(value.name, constant.module, true) : String(constant.value);
  }

  /** A constant in a type position (a union case): `typeof NAME` keeps the link to its definition. */
  literalTypeOf(value: Value): string {
    if (value.kind === "literal") return String(value.value);
    const constant = this.symbols.constants.get(value.name);
    if (!constant) throw new Error(`unknown constant ${value.name}`);
    return `typeof ${this.qualify(value.name, constant.module, false)}`;
  }
}
