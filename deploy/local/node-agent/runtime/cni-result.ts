import { z } from "zod";

// What CNI plugins print (spec 1.0.0): a result on success, an error object on failure. Only the fields
// the runtime reads are checked; the rest is kept as the plugin wrote it, since the whole result goes
// back to the next plugin as prevResult and into the cache DEL reads.

const interfaceSchema = z.looseObject({
  name: z.string(),
  mac: z.string().optional(),
  sandbox: z.string().optional(),
});

const ipConfigSchema = z.looseObject({
  address: z.string(),
  gateway: z.string().optional(),
  interface: z.number().int().nonnegative().optional(),
});

export const cniResultSchema = z.looseObject({
  cniVersion: z.string(),
  interfaces: z.array(interfaceSchema).optional(),
  ips: z.array(ipConfigSchema).optional(),
  routes: z.array(z.looseObject({ dst: z.string(), gw: z.string().optional() })).optional(),
  dns: z.looseObject({}).optional(),
});

export type CniResult = z.infer<typeof cniResultSchema>;

const cniErrorSchema = z.looseObject({
  code: z.number().int(),
  msg: z.string(),
  details: z.string().optional(),
});

export class CniResultError extends Error {
  override readonly name = "CniResultError";
}

/** A plugin's failure, worded as libcni words it: the plugin's msg, then "; details" when given. */
export class CniPluginError extends Error {
  override readonly name = "CniPluginError";
  constructor(
    message: string,
    /** The spec's error code (1-99 well-known, 100+ plugin-specific); undefined without an error object. */
    readonly code?: number,
  ) {
    super(message);
  }
}

export function parseCniResult(stdout: string): CniResult {
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    throw new CniResultError(`plugin printed no JSON result: ${JSON.stringify(truncate(stdout))}`);
  }
  const parsed = cniResultSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CniResultError(`invalid CNI result at ${issue?.path.join(".") || "top"}: ${issue?.message}`);
  }
  return parsed.data;
}

/** The error of a plugin that exited non-zero, from the error object on its stdout where it printed one. */
export function pluginFailure(stdout: string, stderr: string, exit: string): CniPluginError {
  if (stdout.trim() === "") {
    return new CniPluginError(
      stderr.trim() === ""
        ? `netplugin failed with no error message: ${exit}`
        : `netplugin failed: ${JSON.stringify(truncate(stderr))}: ${exit}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  const parsed = cniErrorSchema.safeParse(json);
  if (!parsed.success) {
    return new CniPluginError(
      `netplugin failed but error parsing its diagnostic message ${JSON.stringify(truncate(stdout))}`,
    );
  }
  const { msg, details, code } = parsed.data;
  return new CniPluginError(details ? `${msg}; ${details}` : msg, code);
}

/**
 * The pod's addresses (without prefix length) in the result's order: those of the interface named
 * `ifName` inside a sandbox, as container runtimes pick them; IPs that name no interface count too.
 */
export function podAddresses(result: CniResult, ifName: string): string[] {
  const interfaces = result.interfaces ?? [];
  const addresses = (result.ips ?? [])
    .filter((ip) => {
      if (ip.interface === undefined) return true;
      const owner = interfaces[ip.interface];
      return owner !== undefined && owner.name === ifName && owner.sandbox !== undefined;
    })
    .map((ip) => ip.address.split("/")[0] as string);
  if (addresses.length === 0) {
    throw new CniResultError(`the CNI result has no IP for interface ${ifName}`);
  }
  return addresses;
}

/** The host-side interfaces a result names (no sandbox), e.g. the bridge and the pod's host veth. */
export function hostInterfaces(result: CniResult): string[] {
  return (result.interfaces ?? []).filter((i) => i.sandbox === undefined).map((i) => i.name);
}

function truncate(text: string): string {
  return text.length > 400 ? `${text.slice(0, 400)}...` : text;
}
