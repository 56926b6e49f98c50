export const callables: string[] = [];

// A legacy (experimentalDecorators) method decorator: (target, key, descriptor).
export function callable(target: object, key: string, descriptor: PropertyDescriptor): PropertyDescriptor {
  callables.push(`${target.constructor.name}.${key}`);
  return descriptor;
}
