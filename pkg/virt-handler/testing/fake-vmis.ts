// The VMI cache of virt-handler's controller tests: objects by key, and the one set of event handlers.
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { keyOf } from "../../controller/index.js";
import type { VMIEvents } from "../vm.js";

export class FakeVMIs implements VMIEvents<VirtualMachineInstance> {
  readonly objects = new Map<string, VirtualMachineInstance>();
  private handlers: Parameters<VMIEvents<VirtualMachineInstance>["addEventHandler"]>[0] = {};
  get(key: string) {
    return this.objects.get(key);
  }
  addEventHandler(handlers: typeof this.handlers) {
    this.handlers = handlers;
  }
  set(vmi: VirtualMachineInstance) {
    this.objects.set(keyOf(vmi), vmi);
    this.handlers.add?.(vmi);
  }
  remove(vmi: VirtualMachineInstance) {
    this.objects.delete(keyOf(vmi));
    this.handlers.delete?.(vmi);
  }
}
