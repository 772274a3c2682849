// Tokenizer for the XDR language (RFC 4506 section 6) as rpcgen reads it: C comments, `%` lines
// passed through to C (ignored here) and `#` preprocessor lines (ignored as well).

export type TokenKind = "identifier" | "number" | "symbol" | "end";

export interface Token {
  kind: TokenKind;
  text: string;
  line: number;
  /** The text of the block comment right before this token, if any: it carries rpcgen annotations. */
  comment?: string;
}

export class XdrSyntaxError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    message: string,
  ) {
    super(`${file}:${line}: ${message}`);
    this.name = "XdrSyntaxError";
  }
}

const SYMBOLS = new Set(["{", "}", "(", ")", "[", "]", "<", ">", ";", ",", ":", "=", "*"]);

export function tokenize(file: string, source: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  let line = 1;
  let pendingComment: string | undefined;
  let atLineStart = true;

  const advanceOver = (text: string): void => {
    for (const char of text) if (char === "\n") line++;
    index += text.length;
  };

  while (index < source.length) {
    const rest = source.slice(index, index + 2);
    const char = source[index] ?? "";
    if (char === "\n") {
      line++;
      index++;
      atLineStart = true;
      continue;
    }
    if (char === " " || char === "\t" || char === "\r" || char === "\f") {
      index++;
      continue;
    }
    if (atLineStart && (char === "%" || char === "#")) {
      const end = source.indexOf("\n", index);
      index = end === -1 ? source.length : end;
      continue;
    }
    atLineStart = false;
    if (rest === "/*") {
      const end = source.indexOf("*/", index + 2);
      if (end === -1) throw new XdrSyntaxError(file, line, "unterminated comment");
      const text = source.slice(index, end + 2);
      pendingComment = text;
      advanceOver(text);
      continue;
    }
    if (rest === "//") {
      const end = source.indexOf("\n", index);
      index = end === -1 ? source.length : end;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(index, index + 256));
    const number = /^-?(0[xX][0-9A-Fa-f]+|0[0-7]*|[1-9][0-9]*)/.exec(source.slice(index, index + 64));
    let token: Token;
    if (word) token = { kind: "identifier", text: word[0], line };
    else if (number) token = { kind: "number", text: number[0], line };
    else if (SYMBOLS.has(char)) token = { kind: "symbol", text: char, line };
    else throw new XdrSyntaxError(file, line, `unexpected character ${JSON.stringify(char)}`);
    if (pendingComment !== undefined) token.comment = pendingComment;
    pendingComment = undefined;
    tokens.push(token);
    index += token.text.length;
  }
  tokens.push({ kind: "end", text: "end of file", line });
  return tokens;
}

/** The value of an XDR integer literal: decimal, hexadecimal (0x...) or octal (leading 0). */
export function parseIntegerLiteral(text: string): number {
  const negative = text.startsWith("-");
  const digits = negative ? text.slice(1) : text;
  let value: number;
  if (/^0[xX]/.test(digits)) value = parseInt(digits.slice(2), 16);
  else if (digits.length > 1 && digits.startsWith("0")) value = parseInt(digits.slice(1), 8);
  else value = parseInt(digits, 10);
  return negative ? -value : value;
}
