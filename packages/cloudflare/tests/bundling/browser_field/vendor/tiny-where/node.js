import path from "path";

export function where() {
  return `node ${path.sep}`;
}
