// The launcher's connection to virt-handler's Notify service: dial, agree on a version, send.
// Retrying and reconnecting is the notifier's business (pkg/virt-launcher/notify-client).
import type { Sendable } from "../../grpc-unix.js";
import { UnixSocketClient } from "../../grpc-unix.js";
import { methodDefinition } from "../../proto.js";
import { highestCompatibleVersion } from "../../version.js";
import type { NotifyInfoMethods, NotifyMethods } from "./messages.js";

/** Versions this client speaks; upstream keeps them apart from NOTIFY_VERSION on purpose. */
const SUPPORTED_NOTIFY_VERSIONS = [1] as const;
const NEGOTIATE_TIMEOUT_MS = 5_000;

type Method = keyof NotifyMethods;

export class NotifyClient {
  private constructor(private readonly connection: UnixSocketClient) {}

  static async connect(socketPath: string, connectTimeoutMs: number): Promise<NotifyClient> {
    const connection = new UnixSocketClient(socketPath);
    try {
      await connection.waitForReady(connectTimeoutMs);
      const info = methodDefinition<object, NotifyInfoMethods["Info"]["response"]>(
        "kubevirt.notify.info.NotifyInfo",
        "Info",
      );
      const { supportedNotifyVersions } = await connection.call(info, {}, NEGOTIATE_TIMEOUT_MS);
      highestCompatibleVersion(supportedNotifyVersions, SUPPORTED_NOTIFY_VERSIONS);
    } catch (error) {
      connection.close();
      throw error;
    }
    return new NotifyClient(connection);
  }

  call<K extends Method>(
    method: K,
    request: Sendable<NotifyMethods[K]["request"]>,
    timeoutMs: number,
  ): Promise<NotifyMethods[K]["response"]> {
    const definition = methodDefinition<NotifyMethods[K]["request"], NotifyMethods[K]["response"]>(
      "kubevirt.notify.v1.Notify",
      method,
    );
    return this.connection.call(definition, request, timeoutMs);
  }

  close(): void {
    this.connection.close();
  }
}
