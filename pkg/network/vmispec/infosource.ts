// Where an entry of `status.interfaces` comes from (upstream pkg/network/vmispec/infosource.go): the
// domain's definition, the guest agent, Multus' network status, or several of them joined by ", ".
export const INFO_SOURCE_DOMAIN = "domain";
export const INFO_SOURCE_GUEST_AGENT = "guest-agent";
export const INFO_SOURCE_MULTUS_STATUS = "multus-status";
export const INFO_SOURCE_DOMAIN_AND_GA = `${INFO_SOURCE_DOMAIN}, ${INFO_SOURCE_GUEST_AGENT}`;
