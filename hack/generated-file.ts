/** One file a generator produces; `path` is relative to the repository root. */
export interface GeneratedFile {
  path: string;
  content: string;
}
