/**
 * How deeply `value` nests arrays and objects, counted without recursion (a hostile body can nest hundreds of
 * thousands of levels within a megabyte: any recursive walk of it — JSON.stringify included — overflows the stack).
 * Stops as soon as `max` is passed and returns max + 1 then.
 */
export function nestingDepth(value: unknown, max: number): number {
  let deepest = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    if (item.value === null || typeof item.value !== 'object') continue;
    const depth = item.depth + 1;
    if (depth > max) return max + 1;
    deepest = Math.max(deepest, depth);
    for (const child of Array.isArray(item.value) ? item.value : Object.values(item.value)) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth });
    }
  }
  return deepest;
}
