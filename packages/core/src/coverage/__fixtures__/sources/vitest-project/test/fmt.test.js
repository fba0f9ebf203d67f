import { expect, test } from "vitest";
import { money } from "../src/util/fmt.js";

test("money", () => { expect(money(1234)).toBe("12.34"); });
