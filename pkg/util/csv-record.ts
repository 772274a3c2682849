// The first record of a CSV text as Go's encoding/csv Reader.Read returns it with default settings,
// which is how pflag splits a StringSlice flag's value: fields split on commas, double-quoted fields
// may hold commas, `""` and newlines, blank lines before the record are skipped, and errors carry
// Go's wording and 1-based line and byte-column positions.

const QUOTE = 0x22;
const COMMA = 0x2c;
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

const BARE_QUOTE = 'bare " in non-quoted-field';
const EXTRANEOUS_QUOTE = 'extraneous or missing " in quoted-field';

export class CSVParseError extends Error {}

function parseError(startLine: number, line: number, column: number, reason: string): CSVParseError {
  const where = `parse error on line ${line}, column ${column}: ${reason}`;
  return new CSVParseError(startLine === line ? where : `record on line ${startLine}; ${where}`);
}

/** Go's readLine, line by line: "\r\n" becomes "\n"; the last line keeps no newline it lacked. */
function* linesOf(text: string): Generator<Buffer> {
  const bytes = Buffer.from(text, "utf8");
  let start = 0;
  while (start < bytes.length) {
    const newline = bytes.indexOf(NEWLINE, start);
    let line = bytes.subarray(start, newline < 0 ? bytes.length : newline + 1);
    start += line.length;
    if (newline < 0 && line.at(-1) === CARRIAGE_RETURN) line = line.subarray(0, -1);
    else if (line.at(-2) === CARRIAGE_RETURN && line.at(-1) === NEWLINE) {
      line = Buffer.concat([line.subarray(0, -2), Buffer.from("\n")]);
    }
    yield line;
  }
}

const newlineLength = (line: Buffer): number => (line.at(-1) === NEWLINE ? 1 : 0);

/** The fields of the first record; CSVParseError("EOF") when the text holds none. */
export function readCSVRecord(text: string): string[] {
  const lines = linesOf(text);
  let lineNumber = 0;
  let line: Buffer | undefined;
  // Empty lines before the record are skipped.
  for (let next = lines.next(); !next.done; next = lines.next()) {
    lineNumber++;
    if (next.value.length > newlineLength(next.value)) {
      line = next.value;
      break;
    }
  }
  if (line === undefined) throw new CSVParseError("EOF");
  const startLine = lineNumber;
  const fields: string[] = [];
  let column = 1;
  for (;;) {
    if (line[0] !== QUOTE) {
      const comma = line.indexOf(COMMA);
      const field =
        comma >= 0 ? line.subarray(0, comma) : line.subarray(0, line.length - newlineLength(line));
      const quote = field.indexOf(QUOTE);
      if (quote >= 0) throw parseError(startLine, lineNumber, column + quote, BARE_QUOTE);
      fields.push(field.toString("utf8"));
      if (comma < 0) return fields;
      line = line.subarray(comma + 1);
      column += comma + 1;
      continue;
    }
    const parts: Buffer[] = [];
    const finish = () => fields.push(Buffer.concat(parts).toString("utf8"));
    line = line.subarray(1);
    column += 1;
    for (;;) {
      const quote = line.indexOf(QUOTE);
      if (quote >= 0) {
        parts.push(line.subarray(0, quote));
        line = line.subarray(quote + 1);
        column += quote + 1;
        if (line[0] === QUOTE) {
          parts.push(line.subarray(0, 1));
          line = line.subarray(1);
          column += 1;
        } else if (line[0] === COMMA) {
          line = line.subarray(1);
          column += 1;
          finish();
          break;
        } else if (newlineLength(line) === line.length) {
          finish();
          return fields;
        } else {
          throw parseError(startLine, lineNumber, column - 1, EXTRANEOUS_QUOTE);
        }
      } else if (line.length > 0) {
        // The field goes on on the next line.
        parts.push(line);
        column += line.length;
        const next = lines.next();
        line = next.done ? Buffer.alloc(0) : next.value;
        if (line.length > 0) {
          lineNumber++;
          column = 1;
        }
      } else {
        throw parseError(startLine, lineNumber, column, EXTRANEOUS_QUOTE);
      }
    }
  }
}
