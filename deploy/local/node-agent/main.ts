// The node agent, kvts' kubelet stand-in: one process per simulated node.
//   npx tsx deploy/local/node-agent/main.ts --node node01 --pod-cidr 10.244.1.0/24 \
//     --kubeconfig .local/config/node01.kubeconfig --state-dir .local/nodes/node01 \
//     --ca-cert .local/pki/ca.crt --ca-key .local/pki/ca.key
import { NodeAgent } from "./agent.js";
import { parseFlags } from "./flags.js";
import { createLogger } from "./logger.js";
import { createPodRuntime } from "./runtime-adapter.js";
import { errorMessage } from "../../../pkg/util/error-message.js";

let flags;
try {
  flags = parseFlags(process.argv.slice(2));
} catch (err) {
  console.error(errorMessage(err));
  process.exit(2);
}
const log = createLogger(flags.node);
const { runtime, nodeRoot, close } = await createPodRuntime(flags, log);
const agent = new NodeAgent({ flags, runtime, nodeRoot, log });

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, "stopping; pods keep running for the next start to adopt");
  await agent.stop();
  await close();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));

try {
  await agent.start();
} catch (err) {
  log.fatal({ err }, "node agent failed to start");
  process.exit(1);
}
