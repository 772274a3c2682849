import { mkdir, mkdtemp, readlink, rm, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeLayout, assertPathSegment } from "./node-layout.js";

const POD = { uid: "1111-2222", namespace: "kubevirt", name: "virt-handler-abcde" };

let stateDir: string;
let layout: NodeLayout;

beforeAll(async () => {
  stateDir = await mkdtemp(path.join(os.tmpdir(), "kvts-layout-"));
  layout = new NodeLayout(stateDir);
  await layout.ensure();
});

afterAll(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

describe("NodeLayout", () => {
  it("puts kubelet's directories under the node root at kubelet's paths", () => {
    const root = path.join(stateDir, "root");
    expect(layout.volumeDir(POD.uid, "emptyDir", "sockets")).toBe(
      `${root}/var/lib/kubelet/pods/1111-2222/volumes/kubernetes.io~empty-dir/sockets`,
    );
    expect(layout.volumeDir(POD.uid, "projected", "kube-api-access-x")).toBe(
      `${root}/var/lib/kubelet/pods/1111-2222/volumes/kubernetes.io~projected/kube-api-access-x`,
    );
    expect(layout.containerLogPath(POD, "virt-handler", 2)).toBe(
      `${root}/var/log/pods/kubevirt_virt-handler-abcde_1111-2222/virt-handler/2.log`,
    );
    expect(layout.etcHostsPath(POD.uid)).toBe(`${root}/var/lib/kubelet/pods/1111-2222/etc-hosts`);
  });

  it("links /var/run to /run inside the node root, as on a real host", async () => {
    expect(await readlink(path.join(layout.root, "var/run"))).toBe("../run");
    await layout.ensure();
  });

  it.each([
    ["/var/lib/kubelet/pods", "var/lib/kubelet/pods"],
    ["/var/run/kubevirt", "run/kubevirt"],
    ["/../../../etc/passwd", "etc/passwd"],
    ["var/lib/../../../../root", "root"],
  ])("maps hostPath %j into the node root", async (hostPath, inside) => {
    expect(await layout.hostPathSource(hostPath)).toBe(path.join(layout.root, inside));
  });

  it("keeps a symlink planted in the node root from escaping it", async () => {
    await mkdir(path.join(layout.root, "data"), { recursive: true });
    await symlink("/etc", path.join(layout.root, "data/escape"));
    await symlink("../../../../../../etc", path.join(layout.root, "data/climb"));
    expect(await layout.hostPathSource("/data/escape/shadow")).toBe(path.join(layout.root, "etc/shadow"));
    expect(await layout.hostPathSource("/data/climb/shadow")).toBe(path.join(layout.root, "etc/shadow"));
  });

  it.each([
    ["/dev", "/dev"],
    ["/dev/kvm", "/dev/kvm"],
    ["/proc/../dev/net/tun", "/dev/net/tun"],
    ["/sys/fs/cgroup", "/sys/fs/cgroup"],
  ])("passes kernel interface %j through to the host", async (hostPath, expected) => {
    expect(await layout.hostPathSource(hostPath)).toBe(expected);
  });

  it("does not pass through look-alike paths", async () => {
    expect(await layout.hostPathSource("/devices")).toBe(path.join(layout.root, "devices"));
  });

  it.each(["", ".", "..", "a/b"])("refuses %j as a path segment", (value) => {
    expect(() => assertPathSegment("name", value)).toThrow(/cannot be used/);
    expect(() => layout.podDir(value)).toThrow(/cannot be used/);
  });
});
