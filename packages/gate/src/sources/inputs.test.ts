import { describe, expect, it } from "vitest";
import { GateError } from "@proofgate/core";
import { parseUniverseText } from "./inputs.js";

// unjs/defu 6.1.7's `vitest list --json > collected.json`: a test file that imports node:test's describe
// prints TAP to stdout when vitest imports it, before the list.
const POLLUTED =
  'TAP version 13\n# Subtest: isPlainObject\nok 1 - isPlainObject\n[\n  {\n    "name": "defu > copies",\n    "file": "/r/test/defu.test.ts"\n  }\n]\n';

function errorOf(run: () => unknown): GateError {
  try {
    run();
  } catch (error) {
    if (GateError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a GateError");
}

describe("parseUniverseText: which runner's reader", () => {
  it("with [commands] runner = vitest, a list preceded by other output gets vitest's error, not pytest's", () => {
    const vitest = errorOf(() => parseUniverseText(POLLUTED, "collected.json", "/r", "vitest"));
    expect(vitest.issues[0]!.message).toContain("the list is preceded by other output");
    expect(vitest.issues[0]!.fix).toContain("--json=collected.json");
    // Unset, the format says: text that does not start as a JSON array is pytest's id list.
    const unset = errorOf(() => parseUniverseText(POLLUTED, "collected.json", "/r"));
    expect(unset.issues[0]!.message).toContain('is not a test id: "TAP version 13"');
  });

  it("a clean list reads the same with the runner named or not; JUnit stays JUnit", () => {
    const clean = POLLUTED.slice(POLLUTED.indexOf("["));
    expect(parseUniverseText(clean, "c.json", "/r", "vitest").universe.ids).toEqual([
      "test/defu.test.ts > defu > copies",
    ]);
    expect(parseUniverseText(clean, "c.json", "/r").universe.ids).toEqual(["test/defu.test.ts > defu > copies"]);
    const junit =
      '<testsuites name="vitest tests"><testsuite name="a.test.js"><testcase classname="a.test.js" name="t"/></testsuite></testsuites>';
    expect(parseUniverseText(junit, "r.xml", "/r", "vitest").universe.ids).toEqual(["a.test.js > t"]);
  });
});
