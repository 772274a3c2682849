// Setup file of the `e2e` project: every test file shares the cluster from its first hook to its last
// (cluster-lock.ts says why and how).
import { afterAll, beforeAll } from "vitest";
import { CLUSTER_ALONE_WAIT_MS, leaveTheCluster, shareTheCluster } from "./cluster-lock.js";

beforeAll(shareTheCluster, CLUSTER_ALONE_WAIT_MS);
afterAll(leaveTheCluster);
