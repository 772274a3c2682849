// What a caught value says, for logs, conditions and command output: an Error's message, anything else
// as text (a rejected promise may carry any value).
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
