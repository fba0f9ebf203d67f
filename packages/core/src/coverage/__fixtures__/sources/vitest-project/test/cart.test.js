import { expect, test } from "vitest";
import { total, describe, label } from "../src/cart.js";

test("total", () => { expect(total([1, 2, 3])).toBe(6); });
test("discount", () => { expect(total([100], 10)).toBe(90); });
test("describe", () => { expect(describe([])).toBe("empty"); expect(describe([1, 2])).toBe("2 items"); });
test("label", () => { expect(label(1)).toBe("yes"); });
