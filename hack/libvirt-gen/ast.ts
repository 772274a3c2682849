// The parsed form of an XDR specification (RFC 4506 section 6.3).

/** A constant position: a literal or the name of a `const` / enum member. */
export type Value = { kind: "literal"; value: number; text: string } | { kind: "name"; name: string };

export type PrimitiveKind = "int" | "uint" | "hyper" | "uhyper" | "float" | "double" | "bool";

export type TypeSpec = { kind: PrimitiveKind } | { kind: "named"; name: string };

export type Declaration =
  | { kind: "void" }
  | { kind: "scalar"; name: string; type: TypeSpec }
  | { kind: "fixedArray"; name: string; type: TypeSpec; size: Value }
  | { kind: "varArray"; name: string; type: TypeSpec; max: Value | null }
  | { kind: "opaqueFixed"; name: string; size: Value }
  | { kind: "opaqueVar"; name: string; max: Value | null }
  | { kind: "string"; name: string; max: Value | null }
  | { kind: "optional"; name: string; type: TypeSpec };

export type NamedDeclaration = Exclude<Declaration, { kind: "void" }>;

export interface EnumMember {
  name: string;
  value: Value;
  /** The block comment before the member; procedure enums keep their annotations there. */
  comment?: string;
}

export interface UnionArm {
  cases: Value[];
  declaration: Declaration;
}

interface Located {
  /** Which specification file the definition comes from. */
  file: string;
  line: number;
}

export type Definition = Located &
  (
    | { kind: "const"; name: string; value: Value }
    | { kind: "typedef"; name: string; declaration: NamedDeclaration }
    | { kind: "enum"; name: string; members: EnumMember[] }
    | { kind: "struct"; name: string; fields: NamedDeclaration[] }
    | {
        kind: "union";
        name: string;
        discriminant: { name: string; type: TypeSpec };
        arms: UnionArm[];
        defaultArm: Declaration | null;
      }
  );
