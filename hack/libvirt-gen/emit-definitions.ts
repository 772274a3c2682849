// TypeScript for one XDR definition: the type and, for every type, its codec.
import type { Declaration, Definition, NamedDeclaration } from "./ast.js";
import { codecName, typeName } from "./names.js";
import type { References } from "./references.js";

function declarationType(declaration: NamedDeclaration, refs: References): string {
  switch (declaration.kind) {
    case "scalar":
      return refs.typeOf(declaration.type);
    case "fixedArray":
    case "varArray":
      return `${refs.typeOf(declaration.type)}[]`;
    case "opaqueFixed":
    case "opaqueVar":
      return "Uint8Array";
    case "string":
      return "string";
    case "optional":
      return `${refs.typeOf(declaration.type)} | null`;
  }
}

function declarationCodec(declaration: NamedDeclaration, refs: References): string {
  switch (declaration.kind) {
    case "scalar":
      return refs.codecOf(declaration.type);
    case "fixedArray":
      return `xdr.fixedArray(${refs.codecOf(declaration.type)}, ${refs.valueOf(declaration.size)})`;
    case "varArray":
      return declaration.max === null
        ? `xdr.array(${refs.codecOf(declaration.type)})`
        : `xdr.array(${refs.codecOf(declaration.type)}, ${refs.valueOf(declaration.max)})`;
    case "opaqueFixed":
      return `xdr.opaqueFixed(${refs.valueOf(declaration.size)})`;
    case "opaqueVar":
      return declaration.max === null ? "xdr.opaque()" : `xdr.opaque(${refs.valueOf(declaration.max)})`;
    case "string":
      return declaration.max === null ? "xdr.string()" : `xdr.string(${refs.valueOf(declaration.max)})`;
    case "optional":
      return `xdr.optional(${refs.codecOf(declaration.type)})`;
  }
}

function docLine(definition: Definition): string {
  return `/** XDR \`${definition.kind} ${definition.name}\` (${definition.file}:${definition.line}). */`;
}

function codecConstant(xdrName: string, body: string): string {
  return `export const ${codecName(xdrName)}: XdrCodec<${typeName(xdrName)}> = ${body};`;
}

function emitEnum(definition: Extract<Definition, { kind: "enum" }>, refs: References): string[] {
  const type = typeName(definition.name);
  return [
    ...definition.members.map((member) => `export const ${member.name} = ${refs.valueOf(member.value)};`),
    docLine(definition),
    `export const ${type} = { ${definition.members.map((member) => member.name).join(", ")} } as const;`,
    `export type ${type} = (typeof ${type})[keyof typeof ${type}];`,
    codecConstant(
      definition.name,
      `xdr.enumeration(${JSON.stringify(definition.name)}, Object.values(${type}))`,
    ),
  ];
}

function emitStruct(definition: Extract<Definition, { kind: "struct" }>, refs: References): string[] {
  const type = typeName(definition.name);
  const fields = definition.fields.map((field) => `${field.name}: ${declarationType(field, refs)};`);
  const codecs = definition.fields.map((field) => `${field.name}: ${declarationCodec(field, refs)},`);
  return [
    docLine(definition),
    `export interface ${type} {`,
    ...fields,
    "}",
    codecConstant(
      definition.name,
      `xdr.struct<${type}>(${JSON.stringify(definition.name)}, {\n${codecs.join("\n")}\n})`,
    ),
  ];
}

function armCodec(declaration: Declaration, refs: References): { field: string; codec: string } {
  if (declaration.kind === "void") return { field: "null", codec: "null" };
  return { field: JSON.stringify(declaration.name), codec: declarationCodec(declaration, refs) };
}

function armType(discriminant: string, selector: string, declaration: Declaration, refs: References): string {
  const arm =
    declaration.kind === "void" ? "" : ` ${declaration.name}: ${declarationType(declaration, refs)};`;
  return `| { ${discriminant}: ${selector};${arm} }`;
}

function emitUnion(definition: Extract<Definition, { kind: "union" }>, refs: References): string[] {
  const type = typeName(definition.name);
  const discriminant = definition.discriminant.name;
  const variants = definition.arms.map((arm) =>
    armType(
      discriminant,
      arm.cases.map((value) => refs.literalTypeOf(value)).join(" | "),
      arm.declaration,
      refs,
    ),
  );
  if (definition.defaultArm) variants.push(armType(discriminant, "number", definition.defaultArm, refs));
  const arms = definition.arms.map((arm) => {
    const { field, codec } = armCodec(arm.declaration, refs);
    return `{ cases: [${arm.cases.map((value) => refs.valueOf(value)).join(", ")}], field: ${field}, codec: ${codec} },`;
  });
  const fallback = definition.defaultArm ? armCodec(definition.defaultArm, refs) : null;
  const defaultArm = fallback ? `{ field: ${fallback.field}, codec: ${fallback.codec} }` : "null";
  const selector = `{ field: ${JSON.stringify(discriminant)}, codec: ${refs.codecOf(definition.discriminant.type)} }`;
  return [
    docLine(definition),
    `export type ${type} = ${variants.join("\n")};`,
    codecConstant(
      definition.name,
      `xdr.union<${type}>(${JSON.stringify(definition.name)}, ${selector}, [\n${arms.join("\n")}\n], ${defaultArm})`,
    ),
  ];
}

/** The TypeScript statements for one definition. */
export function emitDefinition(definition: Definition, refs: References): string[] {
  switch (definition.kind) {
    case "const":
      return [`export const ${definition.name} = ${refs.valueOf(definition.value)};`];
    case "typedef":
      return [
        docLine(definition),
        `export type ${typeName(definition.name)} = ${declarationType(definition.declaration, refs)};`,
        codecConstant(definition.name, declarationCodec(definition.declaration, refs)),
      ];
    case "enum":
      return emitEnum(definition, refs);
    case "struct":
      return emitStruct(definition, refs);
    case "union":
      return emitUnion(definition, refs);
  }
}
