// `kubectl port-forward` as a user runs it, for the integration and e2e tests: start it, wait for its
// "Forwarding from" line, make one HTTP/1.0 request through the local port, stop it.
import { spawn } from "node:child_process";
import net from "node:net";

export interface ForwardedResponse {
  /** The raw HTTP response read back through the forwarded port. */
  response: string;
  /** What kubectl wrote to stderr meanwhile (for failure messages). */
  stderr: string;
}

/** GETs `path` through `kubectl <args>` (a port-forward to `localPort`), then stops kubectl. */
export async function httpGetThroughPortForward(
  kubectl: string,
  args: readonly string[],
  localPort: number,
  path: string,
): Promise<ForwardedResponse> {
  const child = spawn(kubectl, args);
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (c: Buffer) => c.toString().includes("Forwarding from") && resolve());
      child.once("exit", (code) => reject(new Error(`port-forward exited with ${code}: ${stderr}`)));
    });
    const response = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(localPort, "127.0.0.1", () => socket.write(`GET ${path} HTTP/1.0\r\n\r\n`));
      let text = "";
      socket.on("data", (c: Buffer) => (text += c.toString()));
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
    });
    return { response, stderr };
  } finally {
    child.kill("SIGTERM");
  }
}
