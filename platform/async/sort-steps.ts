/**
 * Sorting written as steps (see steps.ts): a bottom-up merge sort that yields every `every` comparisons, so a large
 * array (the owner names of a 100 000-record zone take ~80 ms to sort at once) is sorted while the loop keeps running.
 * Stable, like Array.prototype.sort; the input is left as it is.
 */
export function* sortSteps<T>(
  items: readonly T[],
  compare: (a: T, b: T) => number,
  every = 4096,
): Generator<void, T[]> {
  let from = items.slice();
  let to = new Array<T>(from.length);
  let work = 0;
  for (let width = 1; width < from.length; width *= 2) {
    for (let lo = 0; lo < from.length; lo += 2 * width) {
      const mid = Math.min(lo + width, from.length);
      const hi = Math.min(lo + 2 * width, from.length);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        // `<= 0` takes the left one on ties: stable
        to[k++] = compare(from[i] as T, from[j] as T) <= 0 ? (from[i++] as T) : (from[j++] as T);
        if (++work >= every) {
          work = 0;
          yield;
        }
      }
      while (i < mid) to[k++] = from[i++] as T;
      while (j < hi) to[k++] = from[j++] as T;
    }
    [from, to] = [to, from];
  }
  return from;
}
