// virt-launcher-monitor: the compute container's entry point, as upstream's launcher pod names it.
// Upstream's monitor is a separate PID 1 that starts virt-launcher, reaps orphans and forwards
// signals. Here it runs the launcher in its own process instead of a child: one Node process per
// pod halves the per-VM memory overhead, the local node agent gives pods no PID namespace (so
// there is nothing to reap as PID 1), and the launcher itself stops QEMU and libvirtd by PID.
import { runVirtLauncher } from "../../pkg/virt-launcher/run.js";

process.exitCode = await runVirtLauncher(process.argv.slice(2), "virt-launcher-monitor");
