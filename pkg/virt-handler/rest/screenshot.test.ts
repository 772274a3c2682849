import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { silentLogger } from "../../controller/index.js";
import { parseScreenshotPath, ScreenshotHandler } from "./screenshot.js";

const vmi: VirtualMachineInstance = {
  metadata: { name: "testvmi", namespace: "default", uid: "7d0e1f2a-aaaa" },
  spec: { domain: { devices: {} } },
  status: { phase: "Running" },
};
const PNG = Buffer.from("89504e470d0a1a0a", "hex");
const target = { namespace: "default", name: "testvmi" };

describe("parseScreenshotPath", () => {
  it.each([
    ["/v1/namespaces/default/virtualmachineinstances/testvmi/vnc/screenshot", target],
    [
      "/v1/namespaces/ns/virtualmachineinstances/a%2Db/vnc/screenshot?moveCursor=true",
      { namespace: "ns", name: "a-b" },
    ],
    ["/v1/namespaces/default/virtualmachineinstances/testvmi/vnc", undefined],
    ["/v1/namespaces/default/virtualmachineinstances/testvmi/screenshot", undefined],
    ["/v1/namespaces/a%2Fb/virtualmachineinstances/testvmi/vnc/screenshot", undefined],
  ])("%s", (url, expected) => {
    expect(parseScreenshotPath(url)).toEqual(expected);
  });
});

describe("ScreenshotHandler.serve", () => {
  const handler = (
    launcher: () => Promise<{ getScreenshot(): Promise<{ mime: string; data: Buffer }> } | undefined>,
    known = true,
  ) => new ScreenshotHandler({ getVMI: () => (known ? vmi : undefined), launcher, logger: silentLogger });

  it("answers the launcher's picture with its MIME type", async () => {
    const answer = await handler(async () => ({
      getScreenshot: async () => ({ mime: "image/png", data: PNG }),
    })).serve("GET", target);
    expect(answer).toEqual({ code: 200, mime: "image/png", data: PNG });
  });

  it.each([
    ["another method", "PUT", async () => undefined, true, { code: 405, message: "405: Method Not Allowed" }],
    [
      "a VMI not on this node",
      "GET",
      async () => undefined,
      false,
      { code: 404, message: "VMI default/testvmi does not exist" },
    ],
    [
      "no launcher socket",
      "GET",
      async () => undefined,
      true,
      { code: 500, message: "No command socket found for vmi 7d0e1f2a-aaaa" },
    ],
    [
      "a launcher that cannot be dialed",
      "GET",
      async () => {
        throw new Error("could not check cmd server version: connect ECONNREFUSED");
      },
      true,
      { code: 500, message: "could not check cmd server version: connect ECONNREFUSED" },
    ],
    [
      "a domain without a display",
      "GET",
      async () => ({
        getScreenshot: async () => {
          throw new Error('server error. command GetScreenshot failed: "no screens to take screenshot from"');
        },
      }),
      true,
      {
        code: 500,
        message: 'server error. command GetScreenshot failed: "no screens to take screenshot from"',
      },
    ],
  ])("refuses %s", async (_case, method, launcher, known, expected) => {
    expect(await handler(launcher, known).serve(method, target)).toEqual(expected);
  });
});
