// Faults: killing one VMI's launcher fails that VMI only; restarting virt-controller and virt-api changes
// nothing that was already true (the other guest keeps its QEMU process, no duplicate Pod or VMI appears).
import { afterAll, describe, expect, it } from "vitest";
import {
  applyObject,
  componentPods,
  containerPid,
  eventually,
  jsonpath,
  kubectl,
  kubectlOk,
  qemuPids,
} from "./harness.js";
import { CLUSTER_ALONE_WAIT_MS, takeTheClusterAlone } from "./cluster-lock.js";
import { testGuestVMI } from "./test-guest-vm.js";

const VICTIM = "e2e-victim";
const BYSTANDER = "e2e-bystander";

const qemuPid = async (name: string) => (await qemuPids(name))[0];

/** The launcher pod's compute container, as the node agent recorded it. */
async function computePid(vmi: string): Promise<number> {
  const uid = await jsonpath("vmi", vmi, "{.metadata.uid}");
  const pod = await kubectlOk([
    "get",
    "pods",
    "-l",
    `kubevirt.io/created-by=${uid}`,
    "-o",
    "jsonpath={.items[0].metadata.name}",
  ]);
  return containerPid(pod.trim(), "compute");
}

const launcherPods = async (vmi: string) => {
  const uid = await jsonpath("vmi", vmi, "{.metadata.uid}");
  const names = await kubectlOk([
    "get",
    "pods",
    "-l",
    `kubevirt.io/created-by=${uid}`,
    "-o",
    "jsonpath={.items[*].metadata.name}",
  ]);
  return names.trim().split(/\s+/).filter(Boolean);
};

/** Every VMI of the namespace as name/uid: a VMI made again under the same name counts as new. */
const vmiNamesAndUids = async () =>
  (
    await kubectlOk([
      "get",
      "vmis",
      "-o",
      'jsonpath={range .items[*]}{.metadata.name}/{.metadata.uid}{"\\n"}{end}',
    ])
  )
    .split("\n")
    .filter(Boolean);

afterAll(async () => {
  await kubectl(["delete", "vmi", VICTIM, BYSTANDER, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
});

describe("faults", () => {
  it(
    "a killed launcher fails its VMI only; restarted virt-controller and virt-api change nothing",
    async () => {
      await applyObject(testGuestVMI(VICTIM));
      await applyObject(testGuestVMI(BYSTANDER));
      for (const name of [VICTIM, BYSTANDER])
        await eventually(
          async () => expect(await jsonpath("vmi", name, "{.status.phase}")).toBe("Running"),
          240_000,
          1_000,
        );
      const bystanderQemu = await qemuPid(BYSTANDER);
      expect(bystanderQemu).toBeDefined();

      process.kill(await computePid(VICTIM), "SIGKILL");
      await eventually(
        async () => expect(await jsonpath("vmi", VICTIM, "{.status.phase}")).toBe("Failed"),
        120_000,
        1_000,
      );
      expect(await jsonpath("vmi", BYSTANDER, "{.status.phase}")).toBe("Running");
      expect(await qemuPid(BYSTANDER)).toBe(bystanderQemu);

      // Every file relies on virt-controller and virt-api: they restart with no other file running.
      await takeTheClusterAlone();
      // Other files' VMIs may still be going away: what counts is that the restarts add none.
      const vmisBefore = await vmiNamesAndUids();
      for (const component of ["virt-controller", "virt-api"]) {
        const before = (await componentPods(component)).split(" ");
        await kubectlOk(["-n", "kubevirt", "delete", "pod", ...before, "--wait=true"]);
        await kubectlOk(["-n", "kubevirt", "rollout", "status", `deployment/${component}`, "--timeout=180s"]);
      }
      // Whatever the new leader does, it must converge on what already was: let it run a while.
      await new Promise((resolve) => setTimeout(resolve, 15_000));
      expect(await jsonpath("vmi", BYSTANDER, "{.status.phase}")).toBe("Running");
      expect(await qemuPid(BYSTANDER)).toBe(bystanderQemu);
      expect(await launcherPods(BYSTANDER)).toHaveLength(1);
      expect(await jsonpath("vmi", VICTIM, "{.status.phase}")).toBe("Failed");
      const vmisAfter = await vmiNamesAndUids();
      expect(vmisAfter.filter((vmi) => !vmisBefore.includes(vmi))).toEqual([]);
      expect(
        vmisAfter.filter((vmi) => vmi.startsWith(`${BYSTANDER}/`) || vmi.startsWith(`${VICTIM}/`)),
      ).toHaveLength(2);
    },
    300_000 + CLUSTER_ALONE_WAIT_MS,
  );
});
