// virt-launcher: the compute container's process of a VMI pod. See pkg/virt-launcher/launcher.ts.
import { runVirtLauncher } from "../../pkg/virt-launcher/run.js";

process.exitCode = await runVirtLauncher(process.argv.slice(2), "virt-launcher");
