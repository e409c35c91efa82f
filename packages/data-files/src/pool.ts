/**
 * The one bounded worker pool of every engine: at most `limit` tasks in flight, results in input order,
 * and a failure rule the callers' clean-up depends on — after the first failure no new task starts, and the
 * call settles only once every started task has (so nothing still writes when the caller deletes files).
 */

/**
 * Runs `task` over `items` with at most `limit` in flight; results in input order. After the first failure
 * no new item starts, `onFailure` hears of it (to stop the ones in flight), and the call rejects with it
 * only once every started task has settled — so nothing is still running when the caller cleans up.
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
  onFailure?: (error: unknown) => void,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let failure: { error: unknown } | undefined;
  let next = 0;
  const worker = async () => {
    while (next < items.length && failure === undefined) {
      const i = next++;
      try {
        results[i] = await task(items[i] as T);
      } catch (error) {
        if (failure === undefined) {
          failure = { error };
          onFailure?.(error);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure !== undefined) throw failure.error;
  return results;
}
