import type { GateIssue } from "../common/errors.js";

/** The gate's name when none is given: the check run, status, marker and context proofgate always had. */
export const DEFAULT_GATE_NAME = "proofgate";

/** What a name may hold: it goes into check-run and status names, HTML comments and meta-data keys. */
const NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._/]|-(?!-)){0,63}$/;

/**
 * Why `name` cannot name a gate, or undefined when it can: 1 to 64 letters, digits, `.`, `_`, `/` and
 * single `-`, starting with a letter or digit (no `--`, which would end the comment marker's HTML comment).
 */
export function gateNameIssue(name: string, source: string): GateIssue | undefined {
  if (NAME.test(name)) return undefined;
  return {
    code: "usage",
    message: `${source} ${JSON.stringify(name)} is not a gate name: 1 to 64 letters, digits, '.', '_', '/' or '-' (not '--'), starting with a letter or digit`,
    fix: `name the gate like proofgate-api or api/unit`,
  };
}
