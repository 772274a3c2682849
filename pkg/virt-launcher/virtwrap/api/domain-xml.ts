// Domain XML in and out: the schema types of schema.ts written with, and read by, fast-xml-parser.
import { XMLBuilder, XMLParser } from "fast-xml-parser";
import type { DomainSpec } from "./schema.js";
import { deviceElementTypes, domainSpecType } from "./schema.js";
import type { XmlNode } from "./xml-codec.js";
import { ATTR_PREFIX, DomainXMLError, TEXT_KEY } from "./xml-codec.js";
import { errorMessage } from "../../../util/error-message.js";

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: ATTR_PREFIX,
  textNodeName: TEXT_KEY,
  format: true,
  indentBy: "  ",
  suppressEmptyNode: true,
  // Every value handed to the builder is a string; never let one turn into a bare attribute.
  suppressBooleanAttributes: false,
});

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: ATTR_PREFIX,
  textNodeName: TEXT_KEY,
  parseAttributeValue: false,
  parseTagValue: false,
  alwaysCreateTextNode: true,
  // Character data is kept as written (a serial or kernel argument may start with a space).
  trimValues: false,
});

function build(root: string, node: XmlNode): string {
  return String(builder.build({ [root]: node }));
}

/** The domain definition as libvirt reads it (virDomainDefineXML). */
export function marshalDomainXML(spec: DomainSpec): string {
  return build("domain", domainSpecType.encode(spec));
}

/** Reads libvirt's XML back (e.g. virDomainGetXMLDesc); parts outside the schema are ignored. */
export function unmarshalDomainXML(xml: string): DomainSpec {
  let document: unknown;
  try {
    document = parser.parse(xml, true);
  } catch (error) {
    throw new DomainXMLError("", `not well-formed: ${errorMessage(error)}`);
  }
  const root = (document as XmlNode)["domain"];
  if (typeof root !== "object" || root === null || Array.isArray(root)) {
    throw new DomainXMLError("", "no <domain> root element");
  }
  return domainSpecType.decode(root as XmlNode, "/domain");
}

export type DeviceElement = keyof typeof deviceElementTypes;
type DeviceOf<E extends DeviceElement> = Parameters<(typeof deviceElementTypes)[E]["encode"]>[0];

/** One device as its own XML document, the form libvirt's attach/update device calls take. */
export function marshalDeviceXML<E extends DeviceElement>(element: E, device: DeviceOf<E>): string {
  const type = deviceElementTypes[element] as { encode: (value: DeviceOf<E>) => XmlNode };
  return build(element, type.encode(device));
}
