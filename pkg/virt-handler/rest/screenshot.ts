// virt-handler's VNC screenshot endpoint (upstream pkg/virt-handler/rest/screenshot.go): virt-api GETs
// `/v1/namespaces/{ns}/virtualmachineinstances/{name}/vnc/screenshot` over the console server's mutual
// TLS, the VMI's launcher has libvirt take the picture, and the image goes back as the body with the MIME
// type libvirt named (PNG from QEMU 7.1 on).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ConsoleTarget, Refusal } from "./console.js";
import { METHOD_NOT_ALLOWED } from "./console.js";
import type { LauncherCommands } from "../launcher-clients.js";
import { errorMessage } from "../../util/error-message.js";
import { parseVMISubresourcePath, vmiLauncher, writeAnswer, type LauncherLookup } from "./common.js";

export type ScreenshotHandlerOptions = LauncherLookup<Pick<LauncherCommands, "getScreenshot">>;

export interface Screenshot {
  code: 200;
  mime: string;
  data: Buffer;
}

/** The VMI a screenshot request names, or undefined when the URL is not the screenshot route. */
export function parseScreenshotPath(url: string): ConsoleTarget | undefined {
  const target = parseVMISubresourcePath(url, ["vnc/screenshot"]);
  return target && { namespace: target.namespace, name: target.name };
}

export class ScreenshotHandler {
  constructor(private readonly options: ScreenshotHandlerOptions) {}

  async serve(method: string, target: ConsoleTarget): Promise<Screenshot | Refusal> {
    if (method !== "GET") return METHOD_NOT_ALLOWED;
    const found = await vmiLauncher(this.options, target);
    if ("code" in found) return found;
    this.options.logger.info({ ...target }, "Requesting screenshot");
    try {
      const { mime, data } = await found.launcher.getScreenshot(found.vmi);
      return { code: 200, mime, data };
    } catch (error) {
      // Upstream hands an empty 200 on when the launcher failed; the failure is more use to the caller.
      this.options.logger.error({ ...target, err: error }, "Failed to get Screenshot");
      return { code: 500, message: errorMessage(error) };
    }
  }

  /** Serves a plain HTTP request of the console server when it is this endpoint; false otherwise. */
  handleRequest(request: IncomingMessage, response: ServerResponse): boolean {
    const target = parseScreenshotPath(request.url ?? "");
    if (!target) return false;
    request.resume();
    void this.serve(request.method ?? "", target).then((answer) => {
      if ("message" in answer) return writeAnswer(response, answer);
      response.writeHead(200, { "Content-Type": answer.mime, "Content-Length": answer.data.length });
      response.end(answer.data);
    });
    return true;
  }
}
