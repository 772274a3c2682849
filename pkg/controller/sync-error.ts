// A failed sync as upstream's controllers report it (watch/common SyncError): the message goes into a
// condition, the reason is the condition's reason, and the key is retried with backoff unless the error
// is informational only.

export class SyncError extends Error {
  override readonly name = "SyncError";
  constructor(
    message: string,
    readonly reason: string,
    /** false: shown in status, but retrying cannot help until something else changes. */
    readonly requiresRequeue = true,
  ) {
    super(message);
  }
}
