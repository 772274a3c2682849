// The VMI a handler endpoint names and its launcher on this node (upstream lifecycle.go
// getVMILauncherClient), with upstream's refusals: 404 when this node's cache has no such VMI, 500 when
// its launcher cannot be found or dialed.
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import type { Logger } from "../../controller/index.js";
import { errorMessage } from "../../util/error-message.js";
import type { ConsoleTarget, Refusal } from "./console.js";

export interface VMILauncherSource<L> {
  /** The VMI from the handler's informer cache (this node's VMIs only), by `namespace/name`. */
  getVMI(key: string): VirtualMachineInstance | undefined;
  /** The VMI's launcher on this node; undefined when it has no command socket here. */
  launcher(vmi: VirtualMachineInstance): Promise<L | undefined>;
  logger: Logger;
}

export async function vmiLauncher<L>(
  source: VMILauncherSource<L>,
  target: ConsoleTarget,
): Promise<{ vmi: VirtualMachineInstance; launcher: L } | { refused: Refusal }> {
  const key = `${target.namespace}/${target.name}`;
  const vmi = source.getVMI(key);
  if (!vmi) return { refused: { code: 404, message: `VMI ${key} does not exist` } };
  let launcher: L | undefined;
  try {
    launcher = await source.launcher(vmi);
  } catch (error) {
    source.logger.error({ ...target, err: error }, "Failed to connect cmd client");
    return { refused: { code: 500, message: errorMessage(error) } };
  }
  if (!launcher) {
    source.logger.error({ ...target }, "Failed to detect cmd client");
    return { refused: { code: 500, message: `No command socket found for vmi ${vmi.metadata?.uid ?? ""}` } };
  }
  return { vmi, launcher };
}
