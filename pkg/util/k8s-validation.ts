// The few apimachinery string checks (k8s.io/apimachinery/pkg/util/validation) and Go net parsers the
// admitters rely on, returning the same error strings, since upstream puts them into its messages.

const DNS1123_LABEL_MAX_LENGTH = 63;
const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
const PORT_NAME_MAX_LENGTH = 15;

const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);

const DNS1123_LABEL_ERROR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_ERROR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

/** Go's len(): the UTF-8 byte length. */
const byteLength = (value: string): number => Buffer.byteLength(value, "utf8");

export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

export function regexError(message: string, format: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${format}')`;
  const listed = examples.map((example) => `'${example}', `).join(" or ");
  return `${message} (e.g. ${listed}regex used for validation is '${format}')`;
}

export function isDNS1123Label(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errors.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!DNS1123_LABEL.test(value)) {
    // A valid subdomain that is no label can only be wrong because of its dots.
    errors.push(
      DNS1123_SUBDOMAIN.test(value)
        ? "must not contain dots"
        : regexError(DNS1123_LABEL_ERROR, DNS1123_LABEL_FMT, "my-name", "123-abc"),
    );
  }
  return errors;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) {
    errors.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  }
  if (!DNS1123_SUBDOMAIN.test(value)) {
    errors.push(regexError(DNS1123_SUBDOMAIN_ERROR, DNS1123_SUBDOMAIN_FMT, "example.com"));
  }
  return errors;
}

export function isValidPortName(port: string): string[] {
  const errors: string[] = [];
  if (byteLength(port) > PORT_NAME_MAX_LENGTH) errors.push(maxLenError(PORT_NAME_MAX_LENGTH));
  if (!/^[-a-z0-9]+$/.test(port)) {
    errors.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  }
  if (!/[a-z]/.test(port)) errors.push("must contain at least one letter (a-z)");
  if (port.includes("--")) errors.push("must not contain consecutive hyphens");
  if (port.startsWith("-") || port.endsWith("-")) errors.push("must not begin or end with a hyphen");
  return errors;
}

// ---- Go's net.ParseIP / net.ParseMAC ----

const IPV4_OCTET = "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])";
const IPV4 = new RegExp(`^${IPV4_OCTET}(\\.${IPV4_OCTET}){3}$`);

function isIPv4Text(text: string): boolean {
  return IPV4.test(text);
}

/** IPv6 text without a zone, optionally ending in dotted IPv4 (Go refuses zones in ParseIP). */
function isIPv6Text(text: string): boolean {
  if (!/^[0-9a-fA-F:.]+$/.test(text)) return false;
  let groups = text;
  let embeddedIPv4Groups = 0;
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".")) {
    if (!isIPv4Text(text.slice(lastColon + 1))) return false;
    groups = text.slice(0, lastColon + 1) + "0";
    embeddedIPv4Groups = 1;
  }
  const halves = groups.split("::");
  if (halves.length > 2) return false;
  const hexGroup = /^[0-9a-fA-F]{1,4}$/;
  const parts = halves.map((half) => (half === "" ? [] : half.split(":")));
  if (!parts.every((part) => part.every((group) => hexGroup.test(group)))) return false;
  const count = parts.reduce((sum, part) => sum + part.length, 0) + embeddedIPv4Groups;
  return halves.length === 2 ? count <= 7 : count === 8;
}

/** Go's `net.ParseIP(text) != nil`. */
export function isIP(text: string): boolean {
  return isIPv4Text(text) || isIPv6Text(text);
}

/** Go's `net.ParseIP(text).To4() != nil`: dotted IPv4, also when written as an IPv4-mapped IPv6 address. */
export function isIPv4(text: string): boolean {
  if (isIPv4Text(text)) return true;
  const mapped = /^::ffff:(.+)$/i.exec(text);
  return mapped?.[1] !== undefined && isIPv4Text(mapped[1]);
}

const MAC_LENGTHS = new Set([6, 8, 20]);

/** The number of octets of a MAC address Go's net.ParseMAC accepts, or undefined when it refuses it. */
export function macAddressOctets(text: string): number | undefined {
  if (text.length < 14) return undefined;
  const separator = text[2];
  if (separator === ":" || separator === "-") {
    if ((text.length + 1) % 3 !== 0) return undefined;
    const groups = text.split(separator);
    return groups.every((group) => /^[0-9a-fA-F]{2}$/.test(group)) && MAC_LENGTHS.has(groups.length)
      ? groups.length
      : undefined;
  }
  if (text[4] === ".") {
    if ((text.length + 1) % 5 !== 0) return undefined;
    const groups = text.split(".");
    const octets = groups.length * 2;
    return groups.every((group) => /^[0-9a-fA-F]{4}$/.test(group)) && MAC_LENGTHS.has(octets)
      ? octets
      : undefined;
  }
  return undefined;
}
