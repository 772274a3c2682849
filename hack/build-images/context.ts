// The build context as buildah sends it (the checkout less what .dockerignore leaves out), hashed: with the
// Dockerfile, the build arguments and the base image, it decides whether an image must be built again. buildah's
// own layer cache would find every step cached too, but it sends and hashes the whole context for every image
// first, so a run with nothing changed does not call it.
import { createHash } from "node:crypto";
import { lstat, readFile, readdir, readlink } from "node:fs/promises";
import path from "node:path";

interface Pattern {
  negate: boolean;
  regex: RegExp;
  /** For `!` patterns: the literal start of the path (up to the first wildcard), to know where to descend. */
  prefix: string;
}

export interface IgnoreRules {
  patterns: readonly Pattern[];
}

/** A .dockerignore glob as a regular expression over slash-separated relative paths (`**` spans folders). */
function globRegex(glob: string): RegExp {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] ?? "";
    if (char === "*" && glob[i + 1] === "*") {
      // `**/` matches any number of folders (none included); a trailing `**` anything
      if (glob[i + 2] === "/") {
        out += "(?:.*/)?";
        i += 2;
      } else {
        out += ".*";
        i += 1;
      }
    } else if (char === "*") out += "[^/]*";
    else if (char === "?") out += "[^/]";
    else if (char === "[" || char === "\\") {
      throw new Error(`.dockerignore: character classes and escapes are not supported here: ${glob}`);
    } else out += char.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${out}$`);
}

/**
 * Reads .dockerignore as Docker and buildah do: one pattern a line, `#` comments, `!` re-includes, the last pattern
 * that matches a path or one of its parent folders decides. Paths are cleaned (no leading `/` or `./`).
 */
export function parseDockerignore(text: string): IgnoreRules {
  const patterns: Pattern[] = [];
  for (const raw of text.split("\n")) {
    let line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const negate = line.startsWith("!");
    if (negate) line = line.slice(1).trim();
    line = path.posix
      .normalize(line)
      .replace(/^(\.\/|\/)+/, "")
      .replace(/\/+$/, "");
    if (line === "" || line === ".") continue;
    const wildcard = line.search(/[*?]/);
    patterns.push({ negate, regex: globRegex(line), prefix: wildcard < 0 ? line : line.slice(0, wildcard) });
  }
  return { patterns };
}

/** The path and each of its parent folders, shortest first: a/b/c -> a, a/b, a/b/c. */
function selfAndParents(relative: string): string[] {
  const parts = relative.split("/");
  return parts.map((_, i) => parts.slice(0, i + 1).join("/"));
}

/** Whether the context leaves a path out. */
export function isIgnored(rules: IgnoreRules, relative: string): boolean {
  let ignored = false;
  const candidates = selfAndParents(relative);
  for (const pattern of rules.patterns) {
    if (candidates.some((candidate) => pattern.regex.test(candidate))) ignored = !pattern.negate;
  }
  return ignored;
}

/** Whether an ignored folder may still hold something a `!` pattern lets through (so the walk goes in). */
export function mayHoldIncluded(rules: IgnoreRules, folder: string): boolean {
  return rules.patterns.some(
    ({ negate, prefix }) =>
      negate && (prefix === "" || prefix.startsWith(`${folder}/`) || folder.startsWith(prefix)),
  );
}

export interface ContextEntry {
  /** Slash-separated, relative to the context. */
  path: string;
  /** `file <mode> <sha256>`, `link <target>` or `dir <mode>`. */
  what: string;
}

/** Every entry of the context buildah would send, sorted by path. */
export async function contextEntries(root: string, rules: IgnoreRules): Promise<ContextEntry[]> {
  const entries: ContextEntry[] = [];
  async function walk(relative: string): Promise<void> {
    const names = (await readdir(path.join(root, relative))).sort();
    for (const name of names) {
      const child = relative === "" ? name : `${relative}/${name}`;
      const full = path.join(root, child);
      const info = await lstat(full);
      const ignored = isIgnored(rules, child);
      if (info.isDirectory()) {
        if (!ignored) entries.push({ path: child, what: `dir ${(info.mode & 0o7777).toString(8)}` });
        if (!ignored || mayHoldIncluded(rules, child)) await walk(child);
      } else if (!ignored) {
        if (info.isSymbolicLink()) entries.push({ path: child, what: `link ${await readlink(full)}` });
        else if (info.isFile()) {
          const hash = createHash("sha256")
            .update(await readFile(full))
            .digest("hex");
          entries.push({ path: child, what: `file ${(info.mode & 0o7777).toString(8)} ${hash}` });
        }
      }
    }
  }
  await walk("");
  return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** What an image is built from, as far as this machine decides it. */
export interface ImageInputs {
  dockerfile: string;
  buildArgs: Readonly<Record<string, string>>;
  /** The ID of the base image the build arguments name (a rebuilt base under the same name changes it). */
  baseImageID: string;
  context: readonly ContextEntry[];
  /** `buildah --version`. */
  buildah: string;
}

export function imageInputsHash(inputs: ImageInputs): string {
  const hash = createHash("sha256");
  hash.update(`buildah\0${inputs.buildah}\0base\0${inputs.baseImageID}\0`);
  for (const name of Object.keys(inputs.buildArgs).sort())
    hash.update(`arg\0${name}\0${inputs.buildArgs[name]}\0`);
  hash.update(`dockerfile\0${inputs.dockerfile}\0`);
  for (const entry of inputs.context) hash.update(`entry\0${entry.path}\0${entry.what}\0`);
  return hash.digest("hex");
}
