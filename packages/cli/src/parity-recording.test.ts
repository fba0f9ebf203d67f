// The parity recording against the reference script itself (GATE.md 12). Where the script is present
// (CI has ../shared beside the clone), this runs it again on every case of parity-cases.ts, its clock
// pinned to PARITY_NOW, and fails when __fixtures__/parity/recording.json is not what it answers: the
// cases or the script changed and the recording did not. Without the script it skips, saying why; the
// unit test (parity.test.ts) needs only the recording.
//
// PROOFGATE_REFERENCE_SCRIPT names the script (then it must exist), PROOFGATE_PYTHON a Python 3.11+
// (default Debian's /usr/bin/python3). PROOFGATE_PARITY_RECORD=1 writes the recording instead of
// comparing: `pnpm --filter @proofgate/cli parity:record`.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, it } from "vitest";
import {
  ALL_CASES,
  FAULTS,
  PARITY_CASES,
  PARITY_FIXTURES,
  PARITY_NOW,
  RECORD_COMMAND,
  RECORDING_FILE,
  caseFiles,
  commandArgs,
  readRecording,
  recordingDifferences,
  recordingOf,
  recordingText,
  type CaseSpec,
  type RecordedRun,
  type Recording,
  type ScriptCommand,
} from "./parity-cases.js";

const NAMED = process.env.PROOFGATE_REFERENCE_SCRIPT || undefined;
const SCRIPT = NAMED ?? fileURLToPath(new URL("../../../../shared/reference/freeze_account.py", import.meta.url));
const PYTHON = process.env.PROOFGATE_PYTHON || "/usr/bin/python3";
const RUNNER = join(PARITY_FIXTURES, "run-reference.py");
const RECORD = process.env.PROOFGATE_PARITY_RECORD === "1";
// A named script or a record run must have the script; otherwise its absence is a skip (a user's clone).
const PRESENT = existsSync(SCRIPT);
const WHY_SKIPPED = `no reference script at ${SCRIPT} (set PROOFGATE_REFERENCE_SCRIPT to check the recording against it)`;
const TIMEOUT = 120_000;

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runProcess(command: string, args: string[], cwd: string, input: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

let root = "";
const dirs = new Map<CaseSpec, string>();
let fresh: Recording | undefined;

/** Every case's files in a folder of its own. */
function materialise(): void {
  root = mkdtempSync(join(tmpdir(), "proofgate-parity-record-"));
  ALL_CASES.forEach((c, i) => {
    const dir = join(root, `case-${i + 1}`);
    mkdirSync(dir);
    for (const [name, text] of Object.entries(caseFiles(c))) writeFileSync(join(dir, name), text);
    dirs.set(c, dir);
  });
}

/** The script on every case, both commands, in one pinned interpreter. */
async function regenerate(): Promise<Recording> {
  const jobs: { cwd: string; argv: string[] }[] = [];
  recordingOf((c, _command, argv) => {
    jobs.push({ cwd: dirs.get(c)!, argv });
    return { argv, code: 0, stdout: "", stderr: "" };
  });
  const batch = await runProcess(PYTHON, [RUNNER, SCRIPT, PARITY_NOW], root, JSON.stringify(jobs));
  if (batch.code !== 0) throw new Error(`run-reference.py failed (exit ${batch.code}): ${batch.stderr}`);
  const answers = JSON.parse(batch.stdout) as Outcome[];
  if (answers.length !== jobs.length) throw new Error(`run-reference.py answered ${answers.length} of ${jobs.length}`);
  let next = 0;
  return recordingOf((_c, _command, argv): RecordedRun => {
    const { code, stdout, stderr } = answers[next++]!;
    return { argv, code: code!, stdout, stderr };
  });
}

/** The script run once as a program (Python's own exit handling), clock pinned, in the case's folder. */
function program(c: CaseSpec, command: ScriptCommand): Promise<Outcome> {
  return runProcess(
    PYTHON,
    [RUNNER, SCRIPT, PARITY_NOW, "--program", command, ...commandArgs(command, c.flags)],
    dirs.get(c)!,
    "",
  );
}

beforeAll(async () => {
  if (!PRESENT) return;
  if (!existsSync(PYTHON)) throw new Error(`${PYTHON} is missing: set PROOFGATE_PYTHON to a Python 3.11+`);
  materialise();
  fresh = await regenerate();
}, TIMEOUT);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("the parity recording is what the reference script answers", { timeout: TIMEOUT }, () => {
  it("the script is here, or it is not required", ({ expect }) => {
    // A named script that is missing is a mistake, never a skip; so is recording without one.
    if (NAMED) expect(PRESENT, `PROOFGATE_REFERENCE_SCRIPT=${NAMED} does not exist`).toBe(true);
    if (RECORD) expect(PRESENT, `${RECORD_COMMAND} needs the reference script: ${WHY_SKIPPED}`).toBe(true);
  });

  it(RECORD ? "writes the recording" : "the recording is not stale", ({ expect, skip }) => {
    skip(!PRESENT, WHY_SKIPPED);
    if (RECORD) {
      writeFileSync(RECORDING_FILE, recordingText(fresh!));
      return;
    }
    const differences = recordingDifferences(readRecording(), fresh);
    expect(
      differences,
      `${RECORDING_FILE} is stale: the script or the cases changed. Run \`${RECORD_COMMAND}\` and review the diff`,
    ).toEqual([]);
  });

  it("the pinned clock is the recording's day, not today's", ({ expect, skip }) => {
    skip(!PRESENT, WHY_SKIPPED);
    const decide = fresh!.cases.find((c) => c.name === PARITY_CASES[0]!.name)!.runs.decide;
    expect(JSON.parse(decide.stdout)).toMatchObject({ today_utc: PARITY_NOW.slice(0, 10) });
  });

  it("the batched runs answer as the script run as a program", async ({ expect, skip }) => {
    skip(!PRESENT, WHY_SKIPPED);
    // A MERGE, a refusal, a REJECT, and a SystemExit with a message (on stderr, exit 1).
    for (const c of [PARITY_CASES[1]!, PARITY_CASES[4]!, PARITY_CASES[8]!, FAULTS.noLeases]) {
      const recorded = fresh!.cases.find((r) => r.name === c.name)!;
      for (const command of ["emit-deselect", "decide"] as const) {
        const { argv, ...batched } = recorded.runs[command];
        expect(argv[0]).toBe(command);
        expect(batched).toEqual(await program(c, command));
      }
    }
    expect(fresh!.cases.find((r) => r.name === FAULTS.noLeases.name)!.runs.decide).toMatchObject({
      code: 1,
      stdout: "",
      stderr: "freeze file missing [[leases]]\n",
    });
  });
});
