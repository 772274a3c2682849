// A component's GET /metrics (upstream's promhttp handler): the registry's text exposition, and with a limit,
// scrapes beyond it refused while others are still collecting (virt-handler's --max-metric-requests).
import type http from "node:http";
import type { Registry } from "prom-client";
import { errorMessage } from "../../../util/error-message.js";

export const METRICS_PATH = "/metrics";

export interface MetricsAnswer {
  code: number;
  contentType: string;
  body: string;
}

export class MetricsEndpoint {
  private inFlight = 0;

  /** `maxRequestsInFlight` 0: no limit. */
  constructor(
    readonly registry: Registry,
    private readonly maxRequestsInFlight = 0,
  ) {}

  async answer(): Promise<MetricsAnswer> {
    const text = "text/plain; charset=utf-8";
    if (this.maxRequestsInFlight > 0 && this.inFlight >= this.maxRequestsInFlight) {
      const body = `Limit of concurrent requests reached (${this.maxRequestsInFlight}), try again later.\n`;
      return { code: 503, contentType: text, body };
    }
    this.inFlight++;
    try {
      return { code: 200, contentType: this.registry.contentType, body: await this.registry.metrics() };
    } catch (error) {
      return {
        code: 500,
        contentType: text,
        body: `An error has occurred while serving metrics:\n\n${errorMessage(error)}`,
      };
    } finally {
      this.inFlight--;
    }
  }

  async serve(res: http.ServerResponse): Promise<void> {
    const { code, contentType, body } = await this.answer();
    res.writeHead(code, { "Content-Type": contentType });
    res.end(body);
  }
}
