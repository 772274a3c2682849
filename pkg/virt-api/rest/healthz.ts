// Upstream's KubeConnectionHealthzFuncFactory: healthy while the apiserver answers /version; the
// answer is cached until an informer reports a lost connection (clear()).
import { errorMessage } from "../../util/error-message.js";

export interface HealthReply {
  code: 200 | 500;
  body: { apiserver: Record<string, unknown>; "config-resource-version": string };
}

export class KubeApiHealth {
  private version: unknown;

  constructor(
    private readonly fetchVersion: () => Promise<unknown>,
    private readonly configResourceVersion: () => string,
  ) {}

  clear(): void {
    this.version = undefined;
  }

  async check(): Promise<HealthReply> {
    const configVersion = this.configResourceVersion();
    if (this.version === undefined) {
      try {
        this.version = await this.fetchVersion();
      } catch (error) {
        const message = errorMessage(error);
        return {
          code: 500,
          body: {
            apiserver: { connectivity: "failed", error: message },
            "config-resource-version": configVersion,
          },
        };
      }
    }
    return {
      code: 200,
      body: {
        apiserver: { connectivity: "ok", version: this.version },
        "config-resource-version": configVersion,
      },
    };
  }
}
