export function total(prices, discount = 0) {
  let result = 0;
  for (const p of prices) {
    if (p < 0) {
      throw new Error("negative price");
    }
    result += p;
  }
  if (discount) {
    result = (result * (100 - discount)) / 100;
  }
  return result;
}

export function describe(items) {
  if (items.length === 0) return "empty";
  else if (items.length === 1) return "one item";
  return `${items.length} items`;
}

export const label = (x) => (x ? "yes" : "no");

export function neverCalled(x) {
  if (x) {
    return 1;
  }
  return 2;
}
