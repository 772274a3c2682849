// The reasons of the VMI controller's events and sync errors (upstream's pkg/controller/controller.go).
export const FailedCreatePodReason = "FailedCreate";
export const SuccessfulCreatePodReason = "SuccessfulCreate";
export const FailedDeletePodReason = "FailedDelete";
export const SuccessfulDeletePodReason = "SuccessfulDelete";
/** A hotplugged volume's claim cannot be used (yet). */
export const PVCNotReadyReason = "PVCNotReady";
export const FailedHotplugSyncReason = "FailedHotplugSync";
