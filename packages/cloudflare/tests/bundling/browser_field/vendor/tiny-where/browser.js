export function where() {
  return "browser";
}
