// KubeVirt's Pods run from the images built from the Dockerfiles (make images, hack/build-images), as they would
// on a real cluster: what the node agent started for each component container has the image's exported root
// filesystem as its root (the overlay's lower directory), runs the image's compiled bundle with the image's node,
// and reports the image's ID in the Pod status. The launcher's compute container is checked through a VMI started
// paused (its domain defined and started, no guest booting).
import { existsSync } from "node:fs";
import { readFile, readdir, realpath } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cacheDir, layout } from "../../deploy/local/cluster/layout.js";
import { builtComponentDir } from "../../deploy/local/node-agent/runtime/image-store.js";
import { overlayLowerDirs, readMountInfo } from "../../deploy/local/node-agent/runtime/mountinfo.js";
import { applyObject, componentPods, containerPid, jsonpath, kubectl, runningLauncher } from "./harness.js";
import { testGuestVMI } from "./test-guest-vm.js";

const VMI = "e2e-component-images";
const BOOT_TIMEOUT_MS = 240_000;
const cluster = layout();

/** The export the node agent runs a component image from, and the image's ID. */
async function exported(component: string): Promise<{ rootfs: string; imageID: string }> {
  const dir = await realpath(builtComponentDir(cacheDir(), component));
  return {
    rootfs: path.join(dir, "rootfs"),
    imageID: (await readFile(path.join(dir, "image-id"), "utf8")).trim(),
  };
}

/** The lower directories of the overlay mounted as the process's root, from its mountinfo. */
async function rootOverlayLowerDirs(pid: number): Promise<string[]> {
  const root = (await readMountInfo(pid)).filter((entry) => entry.mountPoint === "/").at(-1);
  return root ? overlayLowerDirs(root) : [];
}

const argv = async (pid: number): Promise<string[]> =>
  (await readFile(`/proc/${pid}/cmdline`, "utf8")).split("\0").filter(Boolean);

async function childPids(pid: number): Promise<number[]> {
  const children: number[] = [];
  for (const task of await readdir(`/proc/${pid}/task`)) {
    const text = await readFile(`/proc/${pid}/task/${task}/children`, "utf8").catch(() => "");
    children.push(...text.split(" ").filter(Boolean).map(Number));
  }
  return children;
}

/** What the node agent started for one container runs from the component's exported image. */
async function expectRunFromImage(
  pod: string,
  container: string,
  namespace: string,
  component: string,
): Promise<number> {
  const { rootfs, imageID } = await exported(component);
  const statusImageID = await jsonpath(
    "pod",
    pod,
    `{.status.containerStatuses[?(@.name=='${container}')].imageID}`,
    namespace,
  );
  expect(statusImageID).toMatch(new RegExp(`@sha256:${imageID}$`));
  const pid = await containerPid(pod, container, namespace);
  expect(await rootOverlayLowerDirs(pid)).toEqual([rootfs]);
  // no checkout, no node_modules, no tsx inside: the image's files only
  expect(existsSync(`/proc/${pid}/root${cluster.repoRoot}/package.json`)).toBe(false);
  expect(existsSync(`/proc/${pid}/root/opt/kubevirt/node_modules`)).toBe(false);
  return pid;
}

afterAll(async () => {
  await kubectl(["delete", "vmi", VMI, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
});

const built = cluster.componentImages === "built";
if (!built)
  console.log(
    `[e2e] component-images: skipped, the cluster runs this checkout's bundles (COMPONENT_IMAGES=${cluster.componentImages})`,
  );

describe.skipIf(!built)("KubeVirt's Pods run from the images built from the Dockerfiles", () => {
  it.each(["virt-operator", "virt-api", "virt-controller", "virt-handler"])(
    "%s: the image's root, its node running the compiled bundle",
    async (component) => {
      const pods = (await componentPods(component)).split(" ").filter(Boolean);
      expect(pods.length).toBeGreaterThan(0);
      for (const pod of pods) {
        const pid = await expectRunFromImage(pod, component, "kubevirt", component);
        expect(await argv(pid)).toEqual(
          expect.arrayContaining(["/usr/bin/node", `/opt/kubevirt/bin/${component}.mjs`]),
        );
        expect((await argv(pid))[0]).toBe("/usr/bin/node");
      }
    },
  );

  it(
    "virt-launcher: the compute container runs virt-launcher-monitor, which runs the compiled virt-launcher",
    async () => {
      await applyObject(testGuestVMI(VMI, { startStrategy: "Paused" }));
      const launcher = await runningLauncher(VMI, BOOT_TIMEOUT_MS);
      const monitor = await expectRunFromImage(launcher, "compute", "default", "virt-launcher");
      expect((await argv(monitor))[0]).toBe("/usr/bin/virt-launcher-monitor");
      const children = await Promise.all((await childPids(monitor)).map(argv));
      expect(children).toContainEqual(
        expect.arrayContaining(["/usr/bin/node", "/opt/kubevirt/bin/virt-launcher.mjs"]),
      );
    },
    BOOT_TIMEOUT_MS + 60_000,
  );
});
