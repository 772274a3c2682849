// The event reasons the VM, replica set and pool controllers share (upstream's watch/common/events.go).
export const FailedCreateVirtualMachineReason = "FailedCreate";
export const SuccessfulCreateVirtualMachineReason = "SuccessfulCreate";
export const FailedDeleteVirtualMachineReason = "FailedDelete";
export const SuccessfulDeleteVirtualMachineReason = "SuccessfulDelete";
export const FailedUpdateVirtualMachineReason = "FailedUpdate";
