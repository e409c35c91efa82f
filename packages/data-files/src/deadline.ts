/**
 * Owns an engine call's whole-call deadline (`timeoutMs`), shared by the upsert and the history upsert: one
 * signal (the caller's and the deadline's) for every wait and request of the call; past the deadline the
 * call fails with kind `timeout` — unless the commit's outcome is unknown, which stays the answer (the
 * caller must not retry blindly). Nothing is committed after the deadline fires: the commit itself listens
 * to the same signal. A caller's own abort stays the caller's error.
 */
import { setMaxListeners } from "node:events";
import { DeltaLiteError, isCommitOutcomeUnknown } from "@deltalite/errors";

/**
 * Runs `run` under a deadline of `timeoutMs` (none when undefined), passing it the call's one signal. The
 * timeout error reads "`what` exceeded timeoutMs (N ms)", so `what` names the table and the call.
 */
export async function withCallDeadline<T>(
  what: string,
  timeoutMs: number | undefined,
  callerSignal: AbortSignal | undefined,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const deadline = new AbortController();
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(
          () => deadline.abort(new DeltaLiteError("timeout", `${what} exceeded timeoutMs (${timeoutMs} ms)`)),
          timeoutMs,
        );
  const signal = callerSignal ? AbortSignal.any([callerSignal, deadline.signal]) : deadline.signal;
  // Every permit wait and request of the call listens to this one signal.
  setMaxListeners(0, signal);
  try {
    return await run(signal);
  } catch (error) {
    if (deadline.signal.aborted && !callerSignal?.aborted && !isCommitOutcomeUnknown(error)) {
      throw deadline.signal.reason;
    }
    throw error;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
