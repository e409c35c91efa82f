/** A binary min-heap over an array, ordered by `before` (the k-way merge's run cursors). */

export function heapPush<T>(heap: T[], item: T, before: (a: T, b: T) => boolean): void {
  heap.push(item);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!before(heap[i]!, heap[parent]!)) break;
    [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
    i = parent;
  }
}

export function heapPop<T>(heap: T[], before: (a: T, b: T) => boolean): void {
  const last = heap.pop()!;
  if (heap.length === 0) return;
  heap[0] = last;
  siftDown(heap, 0, before);
}

export function siftDown<T>(heap: T[], start: number, before: (a: T, b: T) => boolean): void {
  let i = start;
  while (true) {
    const left = 2 * i + 1;
    const right = left + 1;
    let best = i;
    if (left < heap.length && before(heap[left]!, heap[best]!)) best = left;
    if (right < heap.length && before(heap[right]!, heap[best]!)) best = right;
    if (best === i) return;
    [heap[i], heap[best]] = [heap[best]!, heap[i]!];
    i = best;
  }
}
