// A hand-written recursive-descent parser for the XDR language (RFC 4506 section 6.3) with the
// rpcgen extensions libvirt's protocol files use (char/short/unsigned alone, constants defined
// by other constants). Written by hand because no maintained rpcgen exists for JavaScript: the
// one maintained npm XDR library (@stellar/js-xdr) encodes and decodes but has no .x parser
// (Stellar generates its definitions with a Ruby tool), and nothing reads the annotations in
// libvirt's procedure enums.
import type {
  Declaration,
  Definition,
  EnumMember,
  NamedDeclaration,
  TypeSpec,
  UnionArm,
  Value,
} from "./ast.js";
import { XdrSyntaxError, parseIntegerLiteral, tokenize } from "./lexer.js";
import type { Token } from "./lexer.js";

class Parser {
  private index = 0;

  constructor(
    private readonly file: string,
    private readonly tokens: Token[],
  ) {}

  private get current(): Token {
    // tokenize() always ends the list with an "end" token, and we never advance past it.
    return this.tokens[this.index] as Token;
  }

  private fail(message: string, token: Token = this.current): never {
    throw new XdrSyntaxError(this.file, token.line, message);
  }

  private next(): Token {
    const token = this.current;
    if (token.kind !== "end") this.index++;
    return token;
  }

  private peekIs(text: string): boolean {
    return this.current.kind !== "end" && this.current.text === text;
  }

  private accept(text: string): boolean {
    if (!this.peekIs(text)) return false;
    this.next();
    return true;
  }

  private expect(text: string): Token {
    if (!this.peekIs(text)) this.fail(`expected "${text}", found "${this.current.text}"`);
    return this.next();
  }

  private identifier(): string {
    const token = this.current;
    if (token.kind !== "identifier") this.fail(`expected a name, found "${token.text}"`);
    return this.next().text;
  }

  private value(): Value {
    const token = this.next();
    if (token.kind === "number")
      return { kind: "literal", value: parseIntegerLiteral(token.text), text: token.text };
    if (token.kind === "identifier") return { kind: "name", name: token.text };
    return this.fail(`expected a number or a constant name, found "${token.text}"`, token);
  }

  parseSpecification(): Definition[] {
    const definitions: Definition[] = [];
    while (this.current.kind !== "end") definitions.push(this.definition());
    return definitions;
  }

  private definition(): Definition {
    const start = this.current;
    const at = { file: this.file, line: start.line };
    const keyword = this.identifier();
    let definition: Definition;
    switch (keyword) {
      case "const": {
        const name = this.identifier();
        this.expect("=");
        definition = { ...at, kind: "const", name, value: this.value() };
        break;
      }
      case "typedef": {
        const declaration = this.declaration();
        if (declaration.kind === "void") this.fail("a typedef cannot be void", start);
        definition = { ...at, kind: "typedef", name: declaration.name, declaration };
        break;
      }
      case "enum":
        definition = { ...at, kind: "enum", name: this.identifier(), members: this.enumBody() };
        break;
      case "struct":
        definition = { ...at, kind: "struct", name: this.identifier(), fields: this.structBody() };
        break;
      case "union":
        definition = { ...at, kind: "union", name: this.identifier(), ...this.unionBody() };
        break;
      case "program":
        return this.fail(
          "rpcgen program blocks are not supported (libvirt numbers procedures in enums)",
          start,
        );
      default:
        return this.fail(
          `expected a definition (const, typedef, enum, struct, union), found "${keyword}"`,
          start,
        );
    }
    this.expect(";");
    return definition;
  }

  private enumBody(): EnumMember[] {
    this.expect("{");
    const members: EnumMember[] = [];
    do {
      if (this.peekIs("}")) break; // tolerate a trailing comma
      const token = this.current;
      const name = this.identifier();
      this.expect("=");
      const member: EnumMember = { name, value: this.value() };
      if (token.comment !== undefined) member.comment = token.comment;
      members.push(member);
    } while (this.accept(","));
    this.expect("}");
    if (members.length === 0) this.fail("an enum needs at least one member");
    return members;
  }

  private structBody(): NamedDeclaration[] {
    this.expect("{");
    const fields: NamedDeclaration[] = [];
    while (!this.peekIs("}")) {
      const declaration = this.declaration();
      if (declaration.kind === "void") this.fail("a struct member cannot be void");
      fields.push(declaration);
      this.expect(";");
    }
    this.expect("}");
    if (fields.length === 0) this.fail("a struct needs at least one member");
    return fields;
  }

  private unionBody(): Omit<Extract<Definition, { kind: "union" }>, "kind" | "name" | "file" | "line"> {
    this.expect("switch");
    this.expect("(");
    const switchToken = this.current;
    const switchOn = this.declaration();
    if (switchOn.kind !== "scalar")
      this.fail("a union discriminant must be a plain int, unsigned int or enum", switchToken);
    this.expect(")");
    this.expect("{");
    const arms: UnionArm[] = [];
    let defaultArm: Declaration | null = null;
    while (this.peekIs("case")) {
      const cases: Value[] = [];
      while (this.accept("case")) {
        cases.push(this.value());
        this.expect(":");
      }
      arms.push({ cases, declaration: this.declaration() });
      this.expect(";");
    }
    if (this.accept("default")) {
      this.expect(":");
      defaultArm = this.declaration();
      this.expect(";");
    }
    this.expect("}");
    if (arms.length === 0) this.fail("a union needs at least one case");
    return { discriminant: { name: switchOn.name, type: switchOn.type }, arms, defaultArm };
  }

  private typeSpecifier(): TypeSpec {
    const token = this.current;
    const word = this.identifier();
    switch (word) {
      case "unsigned":
        if (this.accept("hyper")) return { kind: "uhyper" };
        // `unsigned`, `unsigned int/char/short/long` are all 32-bit unsigned on the wire.
        if (!(this.accept("int") || this.accept("char") || this.accept("short"))) this.accept("long");
        return { kind: "uint" };
      case "int":
      case "char":
      case "short":
      case "long":
        return { kind: "int" };
      case "hyper":
        return { kind: "hyper" };
      case "float":
      case "double":
      case "bool":
        return { kind: word };
      case "quadruple":
        return this.fail("quadruple (128-bit float) is not supported", token);
      case "enum":
      case "struct":
      case "union":
        if (this.peekIs("{"))
          return this.fail(`inline ${word} definitions are not supported: name the type`, token);
        return { kind: "named", name: this.identifier() };
      default:
        return { kind: "named", name: word };
    }
  }

  private declaration(): Declaration {
    if (this.accept("void")) return { kind: "void" };
    if (this.accept("opaque")) {
      const name = this.identifier();
      if (this.accept("[")) return { kind: "opaqueFixed", name, size: this.closeWith("]") };
      this.expect("<");
      return { kind: "opaqueVar", name, max: this.optionalBound() };
    }
    if (this.accept("string")) {
      const name = this.identifier();
      this.expect("<");
      return { kind: "string", name, max: this.optionalBound() };
    }
    const type = this.typeSpecifier();
    if (this.accept("*")) return { kind: "optional", name: this.identifier(), type };
    const name = this.identifier();
    if (this.accept("[")) return { kind: "fixedArray", name, type, size: this.closeWith("]") };
    if (this.accept("<")) return { kind: "varArray", name, type, max: this.optionalBound() };
    return { kind: "scalar", name, type };
  }

  private closeWith(closing: string): Value {
    const value = this.value();
    this.expect(closing);
    return value;
  }

  private optionalBound(): Value | null {
    if (this.accept(">")) return null;
    return this.closeWith(">");
  }
}

/** Parses one specification file; `file` names it in error messages and in the definitions. */
export function parseXdr(file: string, source: string): Definition[] {
  return new Parser(file, tokenize(file, source)).parseSpecification();
}
