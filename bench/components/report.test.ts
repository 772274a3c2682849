import { describe, expect, it } from "vitest";
import type { ProcessSample } from "../common/proc.js";
import type { ComponentPod } from "./pods.js";
import { formatDuring, formatIdle } from "./report.js";
import { Tracker, perPod } from "./tracker.js";

const pod = (
  component: ComponentPod["component"],
  name: string,
  node: string,
  leader = false,
): ComponentPod => ({
  component,
  name,
  uid: `uid-${name}`,
  node,
  leader,
});
const api = pod("virt-api", "virt-api-1", "node01");
const controller = pod("virt-controller", "virt-controller-1", "node01", true);
const handler = pod("virt-handler", "virt-handler-b", "node02");

const node = (
  pid: number,
  binary: string,
  rssMiB: number,
  cpuTicks: number,
  hwmMiB = rssMiB,
): ProcessSample => ({
  pid,
  ppid: 1,
  comm: "node",
  argv: ["/usr/bin/node", "--enable-source-maps", `/w/dist/components/bin/${binary}.mjs`, "-v", "2"],
  rssKiB: rssMiB * 1024,
  pssKiB: rssMiB * 512,
  hwmKiB: hwmMiB * 1024,
  startTicks: 10,
  cpuTicks,
});

describe("components report", () => {
  const tracker = new Tracker();
  tracker.record(0, [
    { pod: api, sample: node(11, "virt-api", 90, 1000) },
    { pod: controller, sample: node(12, "virt-controller", 60, 2000) },
  ]);
  tracker.record(30_000, [
    { pod: api, sample: node(11, "virt-api", 88.5, 1150, 95) },
    { pod: controller, sample: node(12, "virt-controller", 62, 2030) },
  ]);
  const figures = perPod([api, controller, handler], tracker);

  it("prints each pod's idle figures against its component's target", () => {
    const text = formatIdle(figures, 100, tracker.elapsedMs).join("\n");
    expect(text).toMatch(
      /^COMPONENT\s+POD\s+NODE\s+PID\s+COMMAND\s+RSS MiB\s+MAX RSS MiB\s+PSS MiB\s+CPU s\s+CPU %\s+TARGET MiB\s+RSS <= TARGET\s+UPSTREAM MB$/m,
    );
    expect(text).toMatch(
      /^virt-api\s+virt-api-1\s+node01\s+11\s+node virt-api\s+88\.5\s+90\.0\s+44\.3\s+1\.50\s+5\.0\s+<= 80\s+no\s+140$/m,
    );
    expect(text).toMatch(
      /^virt-controller\s+virt-controller-1 \(leader\)\s+node01\s+12\s+node virt-controller\s+62\.0\s+62\.0\s+31\.0\s+0\.30\s+1\.0\s+<= 64\s+yes\s+63$/m,
    );
    // A pod whose processes could not be found says so rather than 0.
    expect(text).toMatch(
      /^virt-handler\s+virt-handler-b\s+node02\s+-\s+\(none found\)\s+n\/a\s+n\/a\s+n\/a\s+n\/a\s+n\/a\s+<= 48\s+n\/a\s+20$/m,
    );
  });

  it("prints the peaks and CPU while a command ran, marking a VmHWM that rose", () => {
    const text = formatDuring(figures.slice(0, 2), 100, tracker.elapsedMs).join("\n");
    expect(text).toMatch(/^COMPONENT\s+POD\s+NODE\s+BEFORE MiB\s+PEAK MiB\s+VmHWM MiB\s+CPU s\s+CPU %$/m);
    expect(text).toMatch(/^virt-api\s+virt-api-1\s+node01\s+90\.0\s+90\.0\s+95\.0 \*\s+1\.50\s+5\.0$/m);
    expect(text).toMatch(
      /^virt-controller\s+virt-controller-1 \(leader\)\s+node01\s+60\.0\s+62\.0\s+62\.0 \*\s+0\.30\s+1\.0$/m,
    );
  });
});
