// Takes the last element, removing it from the caller's array.
export function takeLast(queue: number[]): number | undefined {
  return queue.pop();
}
