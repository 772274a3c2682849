// The vnc and vnc/screenshot subresources of a VMI (upstream pkg/virt-api/rest/vnc.go): vnc is the raw
// stream proxy of the console (console.ts) to virt-handler's VNC endpoint, which passes preserveSession on;
// the screenshot is a GET of virt-handler's endpoint whose bytes (a PNG) are the answer. As upstream's binary
// GET handler, every failure of the screenshot is a 500 whose body is the reason as plain text.
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { errorMessage } from "../../util/error-message.js";
import { parseGoBool } from "../../util/flags.js";
import { VMI_NOT_RUNNING, type ConsoleBackend, type HandlerStream } from "./console.js";
import { getVirtHandler, isRunning, virtHandlerFor } from "./dialers.js";
import { fetchVMI } from "./subresource-app.js";
import { badRequest, type Status } from "./status.js";

export const NO_GRAPHICS_DEVICES = "No graphics devices are present.";

/** Upstream's vmiHasDisplay: a screen to show, and a running VMI. */
export function vmiHasDisplay(vmi: VirtualMachineInstance): Status | undefined {
  if (vmi.spec.domain.devices.autoattachGraphicsDevice === false) return badRequest(NO_GRAPHICS_DEVICES);
  if (!isRunning(vmi)) return badRequest(VMI_NOT_RUNNING);
  return undefined;
}

/**
 * The VNC stream; by default a new client drops the current session, and with `preserveSession` (upstream
 * parses it with strconv.ParseBool, anything else is false) virt-handler refuses while one is open.
 */
export function vncStream(query: URLSearchParams): HandlerStream {
  const preserveSession = parseGoBool(query.get("preserveSession") ?? "") === true;
  return { validate: vmiHasDisplay, handlerPath: `vnc?preserveSession=${preserveSession}` };
}

export interface BinaryAnswer {
  code: number;
  contentType: string;
  body: Buffer;
}

export interface ScreenshotProxyOptions {
  /** virt-handler's --console-server-port. */
  consoleServerPort: number;
  /** The deadline of the GET to virt-handler (libvirt takes well under a second). */
  timeoutMs?: number;
}

const failed = (message: string): BinaryAnswer => ({
  code: 500,
  contentType: "text/plain; charset=utf-8",
  body: Buffer.from(message),
});

export class ScreenshotProxy {
  constructor(
    private readonly backend: ConsoleBackend,
    private readonly options: ScreenshotProxyOptions,
  ) {}

  async handle(namespace: string, name: string): Promise<BinaryAnswer> {
    try {
      return await this.screenshot(namespace, name);
    } catch (error) {
      return failed(errorMessage(error));
    }
  }

  private async screenshot(namespace: string, name: string): Promise<BinaryAnswer> {
    const vmi = await fetchVMI(this.backend, namespace, name);
    if ("code" in vmi) return failed(vmi.message);
    const invalid = vmiHasDisplay(vmi);
    if (invalid) return failed(invalid.message);
    const handler = await virtHandlerFor(
      this.backend,
      vmi,
      this.options.consoleServerPort,
      "vnc/screenshot",
      "https",
    );
    if (!handler.ok) return failed(handler.status.message);
    const answer = await getVirtHandler(handler.value.url, handler.value.tls, "", this.options.timeoutMs);
    if (!answer.ok) return failed(answer.message);
    return { code: 200, contentType: answer.contentType || "application/octet-stream", body: answer.body };
  }
}
