// os.ReadFile's errors as Go words them (`open /x: no such file or directory`), for messages that
// upstream builds from them.
import { readFileSync } from "node:fs";

const ERRNO_TEXT: Readonly<Record<string, string>> = {
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOTDIR: "not a directory",
  ELOOP: "too many levels of symbolic links",
  ENAMETOOLONG: "file name too long",
  EISDIR: "is a directory",
};

/** The file's bytes; on failure an Error with Go's `<op> <path>: <reason>` text. */
export function readFileGo(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    const reason = ERRNO_TEXT[code] ?? (error as Error).message;
    // Go opens a directory fine and fails on the read.
    throw new Error(`${code === "EISDIR" ? "read" : "open"} ${path}: ${reason}`);
  }
}
