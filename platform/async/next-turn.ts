/**
 * Resolves on the event loop's next turn, after the I/O and timers that are due: long work in steps lets DNS
 * answers, other requests and deadlines in between (docs/design.md, "Data plane and control plane").
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
