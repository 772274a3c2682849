// What virt-handler's REST endpoints share (upstream pkg/virt-handler/rest/common.go getVMI and
// lifecycle.go getVMILauncherClient): the VMI named by the path, from this node's informer cache, and the
// command client of its launcher; each failure answered as upstream's handlers answer it.
import type { ServerResponse } from "node:http";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import type { Logger } from "../../controller/index.js";
import { errorMessage } from "../../util/error-message.js";
import { decodePathSegment } from "../../util/path-segment.js";
import type { Refusal } from "./console.js";

export interface VMISubresource<S extends string> {
  namespace: string;
  name: string;
  subresource: S;
}

/**
 * `/v1/namespaces/{ns}/virtualmachineinstances/{name}/{subresource}` for one of `subresources` (which may be
 * nested, as vnc/screenshot), or undefined.
 */
export function parseVMISubresourcePath<S extends string>(
  url: string,
  subresources: readonly S[],
): VMISubresource<S> | undefined {
  const path = url.split("?", 1)[0] ?? "";
  const match = /^\/v1\/namespaces\/([^/]+)\/virtualmachineinstances\/([^/]+)\/([a-z-]+(?:\/[a-z-]+)*)$/.exec(
    path,
  );
  const subresource = match?.[3] as S | undefined;
  if (!match || !subresource || !subresources.includes(subresource)) return undefined;
  const namespace = decodePathSegment(match[1] ?? "");
  const name = decodePathSegment(match[2] ?? "");
  if (namespace === undefined || name === undefined) return undefined;
  return { namespace, name, subresource };
}

export interface LauncherLookup<L> {
  /** The VMI from the handler's informer cache (this node's VMIs only), by `namespace/name`. */
  getVMI(key: string): VirtualMachineInstance | undefined;
  /** The VMI's launcher on this node; undefined when it has no command socket here. */
  launcher(vmi: VirtualMachineInstance): Promise<L | undefined>;
  logger: Logger;
}

/** The VMI and its launcher, or the refusal upstream answers with. */
export async function vmiLauncher<L>(
  lookup: LauncherLookup<L>,
  target: { namespace: string; name: string },
): Promise<{ vmi: VirtualMachineInstance; launcher: L } | Refusal> {
  const key = `${target.namespace}/${target.name}`;
  const vmi = lookup.getVMI(key);
  if (!vmi) return { code: 404, message: `VMI ${key} does not exist` };
  let launcher: L | undefined;
  try {
    launcher = await lookup.launcher(vmi);
  } catch (error) {
    lookup.logger.error({ ...target, err: error }, "Failed to connect cmd client");
    return { code: 500, message: errorMessage(error) };
  }
  if (!launcher) {
    lookup.logger.error({ ...target }, "Failed to detect cmd client");
    return { code: 500, message: `No command socket found for vmi ${vmi.metadata?.uid ?? ""}` };
  }
  return { vmi, launcher };
}

/** An endpoint's answer: a refusal in plain text (go-restful's WriteError), JSON, or a bare code. */
export type RestAnswer = Refusal | { code: number; json: unknown } | { code: number };

export function writeAnswer(response: ServerResponse, answer: RestAnswer): void {
  if ("json" in answer) {
    response.writeHead(answer.code, { "Content-Type": "application/json" });
    response.end(JSON.stringify(answer.json));
  } else if ("message" in answer) {
    response.writeHead(answer.code, { "Content-Type": "text/plain; charset=utf-8" });
    response.end(answer.message);
  } else {
    response.writeHead(answer.code).end();
  }
}
