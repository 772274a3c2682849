import { describe, expect, it } from "vitest";
import {
  domainNotifySocket,
  socketFilePathOnHost,
  socketOnGuest,
  socketsDirectory,
  uninitializedSocketOnGuest,
} from "./sockets.js";

describe("handler-launcher socket paths", () => {
  it.each([
    ["sockets dir", socketsDirectory(), "/var/run/kubevirt/sockets"],
    ["ready socket", socketOnGuest(), "/var/run/kubevirt/sockets/launcher-sock"],
    ["starting socket", uninitializedSocketOnGuest(), "/var/run/kubevirt/sockets/launcher-init-sock"],
    ["custom share dir", socketOnGuest("/tmp/share"), "/tmp/share/sockets/launcher-sock"],
    [
      "on the host",
      socketFilePathOnHost("7c1e"),
      "/pods/7c1e/volumes/kubernetes.io~empty-dir/sockets/launcher-sock",
    ],
    [
      "on the host, kubelet dir",
      socketFilePathOnHost("7c1e", "/var/lib/kubelet/pods"),
      "/var/lib/kubelet/pods/7c1e/volumes/kubernetes.io~empty-dir/sockets/launcher-sock",
    ],
    ["notify socket", domainNotifySocket(), "/var/run/kubevirt/domain-notify-pipe.sock"],
  ])("%s", (_what, actual, expected) => {
    expect(actual).toBe(expected);
  });
});
