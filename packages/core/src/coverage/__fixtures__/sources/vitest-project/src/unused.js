export function unused(a, b) {
  if (a && b) {
    return a + b;
  }
  return 0;
}
