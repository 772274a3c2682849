// TypeScript names for XDR names: types in PascalCase (`remote_nonnull_domain` ->
// `RemoteNonnullDomain`), their codecs with a `Codec` suffix. Constants, enum members and struct
// fields keep the protocol's spelling so they read like libvirt's documentation.

export function typeName(xdrName: string): string {
  return xdrName
    .split("_")
    .filter((part) => part.length > 0)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
}

export function codecName(xdrName: string): string {
  return `${typeName(xdrName)}Codec`;
}

/** `remote_procedure` -> `remoteProcedures`: the generated procedure table of a program. */
export function procedureTableName(programPrefix: string): string {
  return `${programPrefix}Procedures`;
}

export function programName(programPrefix: string): string {
  return `${programPrefix}Program`;
}
