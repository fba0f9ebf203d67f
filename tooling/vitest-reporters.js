// Shared by the unit and end-to-end vitest configs: with PROOFGATE_TEST_JSON set (as .ci/run does),
// vitest also writes its JSON report there, from which CI prints one "N passed, N failed" line.
export function testReporters() {
  const json = process.env.PROOFGATE_TEST_JSON;
  return json ? { reporters: ["default", "json"], outputFile: { json } } : {};
}
