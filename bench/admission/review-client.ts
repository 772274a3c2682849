import { Agent, request } from "node:https";
import { performance } from "node:perf_hooks";

// HTTPS to one virt-api pod, as the apiserver calls a webhook: POST <path>?timeout=<n>s with the review,
// keep-alive connections (several: the apiserver's Go transport keeps a few per host), the server's
// certificate verified with the configuration's caBundle for the Service's DNS name, not the pod's IP.

export interface ReviewClientOptions {
  host: string;
  port: number;
  servername: string;
  ca: string;
  sockets: number;
}

export interface Answer {
  /** undefined when no HTTP answer came (connection error, timeout). */
  status: number | undefined;
  body: string;
  /** From the request's start (its socket taken or queued) to the answer's last byte. */
  latencyMs: number;
  /** Whether the request went on a connection an earlier request opened (no TLS handshake). */
  reusedSocket: boolean;
  error?: string;
}

export class ReviewClient {
  private readonly agent: Agent;

  constructor(private readonly options: ReviewClientOptions) {
    this.agent = new Agent({ keepAlive: true, maxSockets: options.sockets });
  }

  post(path: string, body: string, timeoutMs: number): Promise<Answer> {
    const start = performance.now();
    return new Promise((resolve) => {
      let reusedSocket = false;
      let settled = false;
      const finish = (answer: Omit<Answer, "latencyMs" | "reusedSocket">): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...answer, latencyMs: performance.now() - start, reusedSocket });
      };
      const req = request(
        {
          host: this.options.host,
          port: this.options.port,
          servername: this.options.servername,
          ca: this.options.ca,
          agent: this.agent,
          method: "POST",
          path: `${path}?timeout=${Math.round(timeoutMs / 1000)}s`,
          headers: {
            "Content-Type": "application/json",
            Accept: "application/json, */*",
            "Content-Length": Buffer.byteLength(body),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () =>
            finish({ status: res.statusCode, body: Buffer.concat(chunks).toString("utf8") }),
          );
          res.on("error", (error) => finish({ status: undefined, body: "", error: error.message }));
        },
      );
      req.on("socket", () => (reusedSocket = req.reusedSocket));
      req.on("error", (error) => finish({ status: undefined, body: "", error: error.message }));
      // The apiserver gives up after the webhook's timeoutSeconds.
      const timer = setTimeout(() => {
        finish({ status: undefined, body: "", error: `no answer within ${timeoutMs / 1000} s` });
        req.destroy();
      }, timeoutMs);
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
