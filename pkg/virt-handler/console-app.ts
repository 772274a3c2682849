// Wiring of virt-handler's console server: the console handler over the VMI informer and the mTLS server,
// started once the VMI cache and the client CA (kubevirt-ca.ts) are there.
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import {
  EventRecorder,
  clientEventSink,
  type Informer,
  type KubeClient,
  type Logger,
} from "../controller/index.js";
import type { CAManager } from "../util/tls/ca-manager.js";
import { ConsoleHandler } from "./rest/console.js";
import { ConsoleServer } from "./rest/console-server.js";
import { LifecycleHandler } from "./rest/lifecycle.js";
import { ScreenshotHandler } from "./rest/screenshot.js";
import { GuestInfoHandler } from "./rest/guest-info.js";
import type { LauncherConnector } from "./launcher-clients.js";

export interface ConsoleOptions {
  bindAddress: string;
  /** --console-server-port */
  port: number;
  /** The serving certificate (Secret kubevirt-virt-handler-server-certs). */
  certFile: string;
  keyFile: string;
  /** Where virt-handler runs; the CA ConfigMap lives there. */
  namespace: string;
  /** --ca-configmap-name */
  caConfigMapName?: string;
}

export interface ConsoleContext {
  client: KubeClient;
  host: string;
  podsDir: string;
  vmis: Informer<VirtualMachineInstance>;
  /** The launchers of this node's VMIs, for the lifecycle, guest agent and screenshot endpoints. */
  launcher: LauncherConnector;
  /** The client CA virt-api's certificate must chain to (kubevirtCA). */
  caManager: CAManager;
  logger: Logger;
}

/** Serves consoles until the signal aborts. */
export async function runConsoleServer(
  options: ConsoleOptions,
  context: ConsoleContext,
  signal: AbortSignal,
): Promise<void> {
  const { logger, caManager } = context;
  const handler = new ConsoleHandler({
    host: context.host,
    podsDir: context.podsDir,
    getVMI: (key) => context.vmis.get(key),
    logger,
  });
  const recorder = new EventRecorder(
    clientEventSink(context.client),
    { component: "virt-handler", host: context.host },
    { logger },
  );
  const lifecycle = new LifecycleHandler({
    getVMI: (key) => context.vmis.get(key),
    launcher: context.launcher,
    recordEvent: (vmi, reason, message, type = "Normal") => recorder.event(vmi, type, reason, message),
    logger,
  });
  const guestInfo = new GuestInfoHandler({
    getVMI: (key) => context.vmis.get(key),
    launcher: context.launcher,
    logger,
  });
  const screenshot = new ScreenshotHandler({
    getVMI: (key) => context.vmis.get(key),
    launcher: context.launcher,
    logger,
  });
  const server = new ConsoleServer({
    ...options,
    clientCA: caManager,
    handler,
    lifecycle,
    guestInfo,
    screenshot,
    logger,
  });
  const ready = (await context.vmis.waitForSync(signal)) && (await caManager.ready(signal)) !== undefined;
  if (ready) {
    const port = await server.start();
    logger.info({ port }, "console server listening");
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener("abort", () => resolve(), { once: true });
    });
    await server.stop();
  }
}
