// Imported relatively by ../index.js.
export function add(a, b) {
  return a + b;
}
export const PRECISION = 2;
