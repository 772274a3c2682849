// Go's path/filepath.Match for the machine type patterns of the cluster configuration ("q35*", "pc-q35*"):
// `*` any run of characters but `/`, `?` one such character, `[...]` a class (`^` negates), `\` escapes.
// A malformed pattern matches nothing, as Go reports ErrBadPattern and the caller treats it as no match.

function escapeForRegExp(char: string): string {
  return char.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
}

/** Translates one `[...]` class starting at `start` (just after `[`); undefined when malformed. */
function translateClass(pattern: string, start: number): { source: string; end: number } | undefined {
  let index = start;
  let negated = false;
  if (pattern[index] === "^") {
    negated = true;
    index++;
  }
  let body = "";
  let first = true;
  while (index < pattern.length && (pattern[index] !== "]" || first)) {
    first = false;
    let low = pattern[index];
    if (low === "\\") low = pattern[++index];
    if (low === undefined) return undefined;
    index++;
    if (pattern[index] === "-" && pattern[index + 1] !== "]" && pattern[index + 1] !== undefined) {
      let high = pattern[index + 1];
      index += 2;
      if (high === "\\") high = pattern[index++];
      if (high === undefined || high < low) return undefined;
      body += `${escapeForRegExp(low)}-${escapeForRegExp(high)}`;
    } else {
      body += escapeForRegExp(low);
    }
  }
  if (pattern[index] !== "]" || body === "") return undefined;
  return { source: negated ? `[^${body}]` : `[${body}]`, end: index + 1 };
}

function globToRegExp(pattern: string): RegExp | undefined {
  let source = "";
  for (let index = 0; index < pattern.length;) {
    const char = pattern[index] ?? "";
    if (char === "*") {
      source += "[^/]*";
      index++;
    } else if (char === "?") {
      source += "[^/]";
      index++;
    } else if (char === "[") {
      const translated = translateClass(pattern, index + 1);
      if (translated === undefined) return undefined;
      source += translated.source;
      index = translated.end;
    } else if (char === "\\") {
      const escaped = pattern[index + 1];
      if (escaped === undefined) return undefined;
      source += escapeForRegExp(escaped);
      index += 2;
    } else {
      source += escapeForRegExp(char);
      index++;
    }
  }
  return new RegExp(`^${source}$`, "s");
}

export function goGlobMatch(pattern: string, name: string): boolean {
  return globToRegExp(pattern)?.test(name) ?? false;
}
