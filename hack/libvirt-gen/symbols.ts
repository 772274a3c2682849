// One symbol table over every specification file: which module defines each constant and type,
// constant values, and the checks rpcgen would make (duplicates, unknown names, ranges).
import type { Declaration, Definition, TypeSpec, Value } from "./ast.js";

/** A parsed specification file and the generated module its definitions go to. */
export interface SpecModule {
  /** Path of the .x file relative to the repository root (for the generated header). */
  source: string;
  /** Module name under pkg/libvirt/generated, without extension, e.g. "remote-protocol". */
  module: string;
  /** Short namespace other modules import it under, e.g. "remote". */
  alias: string;
  definitions: Definition[];
}

export type TypeDefinition = Exclude<Definition, { kind: "const" }>;

export interface ConstantSymbol {
  name: string;
  value: number;
  module: SpecModule;
  /** Position in the module's emission order: references to later constants cannot use the name. */
  order: number;
}

export interface TypeSymbol {
  definition: TypeDefinition;
  module: SpecModule;
  order: number;
}

const INT32_MIN = -0x80000000;
const UINT32_MAX = 0xffffffff;

export class SymbolTable {
  readonly constants = new Map<string, ConstantSymbol>();
  readonly types = new Map<string, TypeSymbol>();

  constructor(readonly modules: readonly SpecModule[]) {
    for (const module of modules) this.collect(module);
    for (const module of modules) for (const definition of module.definitions) this.check(definition);
  }

  private where(definition: Definition): string {
    return `${definition.file}:${definition.line}`;
  }

  private collect(module: SpecModule): void {
    module.definitions.forEach((definition, order) => {
      const taken = this.constants.get(definition.name) ?? this.types.get(definition.name);
      if (taken) throw new Error(`${this.where(definition)}: "${definition.name}" is defined twice`);
      if (definition.kind === "const") {
        const value = this.valueOf(definition.value, this.where(definition));
        this.constants.set(definition.name, { name: definition.name, value, module, order });
        return;
      }
      this.types.set(definition.name, { definition, module, order });
      if (definition.kind === "enum") {
        for (const member of definition.members) {
          if (this.constants.has(member.name)) {
            throw new Error(`${this.where(definition)}: enum member "${member.name}" is defined twice`);
          }
          const value = this.valueOf(member.value, this.where(definition));
          if (value < INT32_MIN || value > 0x7fffffff) {
            throw new Error(
              `${this.where(definition)}: ${member.name} = ${value} does not fit an XDR enum (int)`,
            );
          }
          this.constants.set(member.name, { name: member.name, value, module, order });
        }
      }
    });
  }

  /** The number a value stands for; names must be defined earlier (in this or an earlier file). */
  valueOf(value: Value, where: string): number {
    if (value.kind === "literal") return value.value;
    const constant = this.constants.get(value.name);
    if (!constant) throw new Error(`${where}: unknown constant "${value.name}"`);
    return constant.value;
  }

  private checkType(type: TypeSpec, where: string): void {
    if (type.kind === "named" && !this.types.has(type.name))
      throw new Error(`${where}: unknown type "${type.name}"`);
  }

  private checkBound(value: Value | null, where: string): void {
    if (value === null) return;
    const bound = this.valueOf(value, where);
    if (!Number.isInteger(bound) || bound < 0 || bound > UINT32_MAX) {
      throw new Error(`${where}: array or string bound ${bound} is not an unsigned int`);
    }
  }

  private checkDeclaration(declaration: Declaration, where: string): void {
    switch (declaration.kind) {
      case "void":
        return;
      case "scalar":
      case "optional":
        return this.checkType(declaration.type, where);
      case "fixedArray":
        this.checkBound(declaration.size, where);
        return this.checkType(declaration.type, where);
      case "varArray":
        this.checkBound(declaration.max, where);
        return this.checkType(declaration.type, where);
      case "opaqueFixed":
        return this.checkBound(declaration.size, where);
      case "opaqueVar":
      case "string":
        return this.checkBound(declaration.max, where);
    }
  }

  /** Whether a discriminant type is an int, unsigned int or enum (possibly through typedefs). */
  isIntegerLike(type: TypeSpec): boolean {
    if (type.kind === "int" || type.kind === "uint") return true;
    if (type.kind !== "named") return false;
    const definition = this.types.get(type.name)?.definition;
    if (definition?.kind === "enum") return true;
    return definition?.kind === "typedef" && definition.declaration.kind === "scalar"
      ? this.isIntegerLike(definition.declaration.type)
      : false;
  }

  private check(definition: Definition): void {
    const where = this.where(definition);
    switch (definition.kind) {
      case "const":
      case "enum":
        return;
      case "typedef":
        return this.checkDeclaration(definition.declaration, where);
      case "struct":
        return definition.fields.forEach((field) => this.checkDeclaration(field, where));
      case "union": {
        if (!this.isIntegerLike(definition.discriminant.type)) {
          throw new Error(`${where}: union ${definition.name} must switch on an int, unsigned int or enum`);
        }
        const seen = new Set<number>();
        for (const arm of definition.arms) {
          this.checkDeclaration(arm.declaration, where);
          for (const value of arm.cases) {
            const number = this.valueOf(value, where);
            if (seen.has(number))
              throw new Error(`${where}: union ${definition.name} repeats case ${number}`);
            seen.add(number);
          }
        }
        if (definition.defaultArm) this.checkDeclaration(definition.defaultArm, where);
        return;
      }
    }
  }
}
