/** Vitest reporter options: the default reporter, plus JSON to $PROOFGATE_TEST_JSON when set. */
export function testReporters(): { reporters?: string[]; outputFile?: { json: string } };
