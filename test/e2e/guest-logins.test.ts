// Upstream's demo images, as their users and upstream's functional tests log in to them: the example
// vm-cirros.yaml applied unchanged, started with virtctl, shows CirrOS' banner and login on its serial
// console; cirros/gocubsgo gets a `$ ` shell whose sudo is root. (The local cluster maps the image name to
// the test guest's cirros personality: deploy/local/guest/README.md.)
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConsoleSession, applyYAML, cluster, kubectl, runningLauncher, virtctl } from "./harness.js";

const BOOT_TIMEOUT_MS = 240_000;
const EXAMPLE = join(cluster.repoRoot, "test/conformance/upstream-examples/vm-cirros.yaml");
const VM = "vm-cirros";

afterAll(async () => {
  await kubectl(["delete", "vm", VM, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
});

describe("virtctl console vm-cirros, as the user guide has it", () => {
  it(
    "shows the cirros login, and cirros/gocubsgo logs in with a working sudo",
    async () => {
      await applyYAML(await readFile(EXAMPLE, "utf8"));
      const start = await virtctl(["start", VM]);
      expect(start.stderr).toBe("");
      await runningLauncher(VM, BOOT_TIMEOUT_MS);
      const session = new ConsoleSession(VM);
      try {
        await session.expect(
          /login as 'cirros' user\. default password: 'gocubsgo'\. use 'sudo' for root\./,
          BOOT_TIMEOUT_MS,
          { pokeMs: 5_000 },
        );
        let from = session.transcript.length;
        await session.expect(/ login: $/, 60_000, { pokeMs: 5_000 });
        session.type("cirros\r");
        await session.expect(/Password: $/, 30_000, { from });
        from = session.transcript.length;
        session.type("gocubsgo\r");
        await session.expect(/\n\$ /, 30_000, { from });
        from = session.transcript.length;
        session.type("echo ID-$(id -un)-$(sudo id -u)-DI\r");
        expect(await session.expect(/ID-\w+-\d+-DI/, 30_000, { from })).toBe("ID-cirros-0-DI");
      } finally {
        await session.close();
      }
    },
    BOOT_TIMEOUT_MS * 2,
  );
});
