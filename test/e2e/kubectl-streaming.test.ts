// Debugging a running VM the way users do (and the article this project started from): kubectl exec
// into the launcher's compute container sees virt-launcher and QEMU, the pod's network devices and
// libvirt's domain through virsh; exec with stdin and a TTY; kubectl cp both ways; port-forward and
// attach to a pod's server and output; exec into virt-handler.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpGetThroughPortForward } from "../support/port-forward.js";
import { binary } from "../../deploy/local/cluster/layout.js";
import {
  applyObject,
  applyYAML,
  cluster,
  componentPods,
  eventually,
  jsonpath,
  kubectl,
  kubectlOk,
  runningLauncher,
} from "./harness.js";
import { testGuestVM } from "./test-guest-vm.js";

const BOOT_TIMEOUT_MS = 240_000;
const VM = "e2e-streaming";
const WEB = "e2e-streaming-web";
let launcher: string;
let scratch: string;

const webYAML = `
apiVersion: v1
kind: Pod
metadata:
  name: ${WEB}
spec:
  terminationGracePeriodSeconds: 1
  containers:
    - name: web
      image: busybox
      command:
        - sh
        - -c
        - mkdir -p /tmp/www && echo hello-through-port-forward > /tmp/www/index.html && httpd -p 8080 -h /tmp/www;
          i=0; while true; do i=$((i+1)); echo web-tick-$i; sleep 0.5; done
`;

const kubectlBinary = () => binary(cluster, "kubectl");
const execCompute = (args: string[], input?: string) =>
  kubectl(
    ["exec", ...(input !== undefined ? ["-i"] : []), launcher, "-c", "compute", "--", ...args],
    input === undefined ? {} : { input },
  );

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), "kvts-e2e-streaming-"));
  await applyObject(testGuestVM(VM, { podNetwork: "masquerade" }));
  await applyYAML(webYAML);
  launcher = await runningLauncher(VM, BOOT_TIMEOUT_MS);
  await kubectlOk(["wait", `pod/${WEB}`, "--for=condition=Ready", "--timeout=120s"]);
}, BOOT_TIMEOUT_MS + 150_000);

afterAll(async () => {
  await kubectl(["delete", "vm", VM, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
  await kubectl(["delete", "pod", WEB, "--ignore-not-found", "--wait=false"]);
  if (scratch) await rm(scratch, { recursive: true, force: true });
}, 150_000);

describe("kubectl exec into a VM's launcher", () => {
  it("`ps -ef` shows virt-launcher and the VM's QEMU", async () => {
    const result = await execCompute(["ps", "-ef"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/virt-launcher/);
    expect(result.stdout).toMatch(new RegExp(`qemu-system\\S*.*guest=default_${VM},`));
  });

  it("`ip a` shows the pod's eth0, the masquerade bridge and the VM's tap", async () => {
    const result = await execCompute(["ip", "a"]);
    expect(result.code, result.stderr).toBe(0);
    const podIP = (await kubectlOk(["get", "pod", launcher, "-o", "jsonpath={.status.podIP}"])).trim();
    expect(result.stdout).toMatch(/\d+: eth0@/);
    expect(result.stdout).toContain(`inet ${podIP}/`);
    expect(result.stdout).toMatch(/\d+: k6t-eth0:/);
    expect(result.stdout).toMatch(/\d+: tap0:/);
  });

  it("`virsh list` and `virsh dumpxml 1` talk to the launcher's own libvirt", async () => {
    const list = await execCompute(["virsh", "list"]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`^\\s*1\\s+default_${VM}\\s+running`, "m"));
    const xml = await execCompute(["virsh", "dumpxml", "1"]);
    expect(xml.code, xml.stderr).toBe(0);
    expect(xml.stdout).toMatch(/^<domain type='\w+' id='1'/);
    expect(xml.stdout).toContain(`<name>default_${VM}</name>`);
  });

  it("`ls -al /var/run/kubevirt-private` lists the launcher's private files", async () => {
    const result = await execCompute(["ls", "-al", "/var/run/kubevirt-private"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(await jsonpath("vmi", VM, "{.metadata.uid}"));
  });

  it("passes stdin (-i) and reports exit codes", async () => {
    expect((await execCompute(["cat"], "to the compute container\n")).stdout).toBe(
      "to the compute container\n",
    );
    expect((await execCompute(["sh", "-c", "exit 4"])).code).toBe(4);
  });

  it("gives -t a terminal of the client's size", async () => {
    const command = `stty cols 90 rows 25; ${kubectlBinary()} --kubeconfig ${cluster.adminKubeconfig} exec -it ${launcher} -c compute -- sh -c 'tty; stty size'`;
    const output = await new Promise<string>((resolve) => {
      const child = spawn("script", ["-qec", command, "/dev/null"]);
      let text = "";
      child.stdout.on("data", (c: Buffer) => (text += c.toString()));
      child.on("close", () => resolve(text));
      // stdin stays open, as a user's terminal does: at EOF `script` would type ^D into the session.
      child.stdin.on("error", () => undefined);
    });
    expect(output).toMatch(/\/dev\/pts\/\d+\r\n25 90\r\n/);
  });

  it("kubectl cp copies into the compute container and back", async () => {
    const local = path.join(scratch, "notes.txt");
    await writeFile(local, "debug notes\n".repeat(1000));
    await kubectlOk(["cp", "-c", "compute", local, `${launcher}:/tmp/notes.txt`]);
    const back = path.join(scratch, "back.txt");
    await kubectlOk(["cp", "-c", "compute", `${launcher}:/tmp/notes.txt`, back]);
    expect(await readFile(back, "utf8")).toBe("debug notes\n".repeat(1000));
  });
});

describe("kubectl port-forward and attach", () => {
  it("port-forward pod/<pod> LOCAL:PORT reaches the server in the pod", async () => {
    const { response, stderr } = await httpGetThroughPortForward(
      kubectlBinary(),
      ["--kubeconfig", cluster.adminKubeconfig, "port-forward", `pod/${WEB}`, "18081:8080"],
      18081,
      "/index.html",
    );
    expect(response, stderr).toMatch(/^HTTP\/1\.[01] 200/);
    expect(response).toContain("hello-through-port-forward");
  });

  it("attach follows the pod's output", async () => {
    const child = spawn(kubectlBinary(), ["--kubeconfig", cluster.adminKubeconfig, "attach", WEB]);
    let text = "";
    child.stdout.on("data", (c: Buffer) => (text += c.toString()));
    try {
      await eventually(
        async () => expect(text.match(/web-tick-\d+/g)?.length ?? 0).toBeGreaterThanOrEqual(2),
        20_000,
      );
    } finally {
      child.kill("SIGTERM");
    }
  });
});

describe("kubectl exec into virt-handler", () => {
  it("runs in the handler's container", async () => {
    const handler = (await componentPods("virt-handler")).split(" ")[0] as string;
    const result = await kubectl([
      "-n",
      "kubevirt",
      "exec",
      handler,
      "--",
      "sh",
      "-c",
      "echo in-$(cat /etc/hostname); ls /var/run/kubevirt",
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`in-${handler}`);
  });
});
