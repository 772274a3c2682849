// Where an entry of `status.interfaces` comes from (upstream pkg/network/vmispec/infosource.go): the
// domain's definition, the guest agent, Multus' network status, or several of them joined by ", ".
export const INFO_SOURCE_DOMAIN = "domain";
export const INFO_SOURCE_GUEST_AGENT = "guest-agent";
export const INFO_SOURCE_MULTUS_STATUS = "multus-status";
export const INFO_SOURCE_DOMAIN_AND_GA = `${INFO_SOURCE_DOMAIN}, ${INFO_SOURCE_GUEST_AGENT}`;

const SEPARATOR = ", ";

export function newInfoSource(...names: string[]): string {
  return names.join(SEPARATOR);
}

/** The sources with `name` appended, unless it is listed already. */
export function addInfoSource(infoSource: string | undefined, name: string): string {
  const sources = infoSource ? infoSource.split(SEPARATOR) : [];
  if (sources.includes(name)) return infoSource ?? "";
  return newInfoSource(...sources, name);
}

export function removeInfoSource(infoSource: string | undefined, name: string): string {
  return newInfoSource(...(infoSource ?? "").split(SEPARATOR).filter((source) => source !== name));
}

export function containsInfoSource(infoSource: string | undefined, name: string): boolean {
  return (infoSource ?? "").split(SEPARATOR).includes(name);
}
