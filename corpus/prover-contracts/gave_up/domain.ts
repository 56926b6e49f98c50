export function initials(name: string): string {
  return name.slice(0, 1);
}
