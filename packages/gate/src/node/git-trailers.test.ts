// Property: the trailers proofgate reads with `listCommits` (git log's `%(trailers:only,unfold)`) are
// exactly what `git interpret-trailers --parse` reads from the same message. Hundreds of messages
// per run, with git called a handful of times: all commits go in through one `git fast-import`,
// come out through ONE listCommits, and interpret-trailers rewrites all message files in place.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Trailer } from "@proofgate/core";
import { listCommits } from "./git.js";
import { ISOLATED_GIT_ENV, scratchGit, scratchRepo, type ScratchRepo } from "../testing/git-scratch.js";

const SEED = 20260926;
const RUNS = 600;

// ---- messages ------------------------------------------------------------------------------

const word = fc.string({ unit: fc.constantFrom(..."abcdefgxyzABCXYZ0189é漢".split("")), minLength: 1, maxLength: 8 });
/** Text that may hold separators, brackets, comment chars and tabs, but never a newline. */
const text = fc
  .array(fc.oneof(word, fc.constantFrom(" ", ": ", ":", "#", "<a@b.c>", "(x)", "[bot]", "\t", "--", "=")), {
    maxLength: 6,
  })
  .map((parts) => parts.join(""));
const key = fc.oneof(
  fc.constantFrom(
    "Signed-off-by",
    "Co-authored-by",
    "co-authored-by",
    "Freeze-Lease",
    "Fixture-Lock",
    "Property-Seeds",
    "Gate-Change",
    "Reviewed-by",
    "Fixes",
    "Change-Id",
    "Bug",
    "X",
  ),
  fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9-]{0,10}$/),
);
const person = fc.constantFrom(
  "Ada <ada@example.org>",
  "dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>",
  "Claude <noreply@anthropic.com>",
  "Zoë 漢 <z@x>",
);

/** One line of a trailer block: trailers in their spellings, continuations, comments, other lines. */
const trailerLine = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(key, text).map(([k, v]) => `${k}: ${v}`) },
  { weight: 1, arbitrary: fc.tuple(key, text).map(([k, v]) => `${k}:${v}`) },
  { weight: 1, arbitrary: fc.tuple(key, text).map(([k, v]) => `${k} : ${v}`) },
  { weight: 1, arbitrary: key.map((k) => `${k}:`) },
  { weight: 3, arbitrary: person.map((p) => `Signed-off-by: ${p}`) },
  { weight: 2, arbitrary: person.map((p) => `Co-authored-by: ${p}`) },
  { weight: 2, arbitrary: fc.constantFrom("Freeze-Lease: human", "freeze-lease:  HUMAN  ", "Fixture-Lock: human") },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(" ", "  ", "\t"), text).map(([ws, v]) => `${ws}${v}`) },
  { weight: 1, arbitrary: text.map((t) => `# ${t}`) },
  { weight: 1, arbitrary: text },
  { weight: 1, arbitrary: fc.constant("(cherry picked from commit 0123456789abcdef0123456789abcdef01234567)") },
);

/** A body line: prose, lookalike trailers, comments, cut lines. */
const bodyLine = fc.oneof(
  { weight: 4, arbitrary: text },
  { weight: 2, arbitrary: fc.tuple(key, text).map(([k, v]) => `${k}: ${v}`) },
  { weight: 1, arbitrary: text.map((t) => `# ${t}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("---", "--- a/file", "---x", "# ------------------------ >8 ------------------------"),
  },
  { weight: 1, arbitrary: fc.constant("") },
);

const paragraph = <T extends string>(line: fc.Arbitrary<T>, max: number) =>
  fc.array(line, { minLength: 1, maxLength: max });

const messageArb = fc
  .record({
    subject: fc.oneof(
      text,
      fc.tuple(key, text).map(([k, v]) => `${k}: ${v}`),
    ),
    body: fc.array(paragraph(bodyLine, 4), { maxLength: 3 }),
    trailers: fc.option(paragraph(trailerLine, 6), { freq: 4, nil: undefined }),
    /** A `---` section after the trailers, as in a patch e-mail. */
    cut: fc.option(fc.tuple(fc.constantFrom("---", "--- ", "---\t"), paragraph(bodyLine, 3)), {
      freq: 4,
      nil: undefined,
    }),
    blanksBetween: fc.constantFrom("\n", "\n\n", "\n \n", "\n\n\n"),
    trailingBlanks: fc.constantFrom("", "\n", "\n\n", "\n  \n"),
    eol: fc.constantFrom("lf", "lf", "crlf", "mixed"),
    finalNewline: fc.boolean(),
    mixSeed: fc.nat(),
  })
  .map((m) => {
    const paragraphs = [[m.subject], ...m.body, ...(m.trailers ? [m.trailers] : [])].map((lines) => lines.join("\n"));
    let message = paragraphs.join(m.blanksBetween);
    if (m.cut) message += `\n${m.cut[0]}\n${m.cut[1].join("\n")}`;
    message += m.trailingBlanks;
    if (m.finalNewline) message += "\n";
    if (m.eol === "crlf") message = message.replace(/\n/g, "\r\n");
    if (m.eol === "mixed") {
      let n = m.mixSeed;
      message = message.replace(/\n/g, () => ((n = (n * 1103515245 + 12345) % 2147483648) & 4 ? "\r\n" : "\n"));
    }
    return message;
  });

// ---- git, batched --------------------------------------------------------------------------

interface Read {
  /** proofgate: listCommits. */
  log: Trailer[];
  /** git interpret-trailers --parse --no-divider (a commit message is not a patch e-mail). */
  parse: Trailer[];
  /** git interpret-trailers --parse (with the `---` divider). */
  /** Undefined when not asked: git 2.39's interpret-trailers loops forever on a `---` line followed by a scissors line. */
  parseDivider: Trailer[] | undefined;
}

/** `interpret-trailers --parse` prints `Key: value` per trailer (values unfolded: no newline). */
function parseInterpretOutput(out: string): Trailer[] {
  return out
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const colon = line.indexOf(":");
      return { key: line.slice(0, colon), value: line.slice(colon + 2) };
    });
}

let repo: ScratchRepo;
let batchNo = 0;

/** Commits every message (one fast-import), reads them back (one listCommits) and parses each with interpret-trailers. */
function readAll(messages: readonly string[]): Map<string, Read> {
  const unique = [...new Set(messages)];
  const batch = `batch${batchNo++}`;
  const dir = join(repo.dir, ".msgs", batch);
  mkdirSync(dir, { recursive: true });

  const stream: Buffer[] = [];
  const ref = `refs/heads/${batch}`;
  const push = (s: string | Buffer) => stream.push(typeof s === "string" ? Buffer.from(s, "utf8") : s);
  push(`reset ${ref}\nfrom ${repo.git(["rev-parse", "HEAD"]).trim()}\n\n`);
  unique.forEach((message, i) => {
    const bytes = Buffer.from(message, "utf8");
    push(
      `commit ${ref}\nmark :${i + 1}\nauthor A <a@x> 1700000000 +0000\ncommitter C <c@x> 1700000000 +0000\ndata ${bytes.length}\n`,
    );
    push(bytes);
    push("\n");
  });
  const marks = join(dir, "marks");
  repo.git(["fast-import", "--quiet", "--done", `--export-marks=${marks}`], {
    input: Buffer.concat([...stream, Buffer.from("done\n")]),
  });
  const shaOf = new Map(
    readFileSync(marks, "utf8")
      .trim()
      .split("\n")
      .map((line) => [Number(line.split(" ")[0]!.slice(1)), line.split(" ")[1]!] as const),
  );

  const commits = listCommits({ base: "HEAD", head: ref }, { cwd: repo.dir, env: process.env });
  const bySha = new Map(commits.map((c) => [c.sha, c.trailers]));
  expect(commits).toHaveLength(unique.length);

  const files = unique.map((message, i) => {
    const a = join(dir, `${i}.nodiv`);
    const text = asLogReadsIt(message);
    writeFileSync(a, text);
    if (SCISSORS.test(message)) return [a, undefined] as const;
    const b = join(dir, `${i}.div`);
    writeFileSync(b, text);
    return [a, b] as const;
  });
  for (let i = 0; i < files.length; i += 200) {
    const chunk = files.slice(i, i + 200);
    repo.git(["interpret-trailers", "--in-place", "--parse", "--no-divider", ...chunk.map(([a]) => a)]);
    const withDivider = chunk.flatMap(([, b]) => (b ? [b] : []));
    if (withDivider.length > 0) repo.git(["interpret-trailers", "--in-place", "--parse", ...withDivider]);
  }
  const out = new Map<string, Read>();
  unique.forEach((message, i) => {
    const [a, b] = files[i]!;
    out.set(message, {
      log: bySha.get(shaOf.get(i + 1)!)!,
      parse: parseInterpretOutput(readFileSync(a, "utf8")),
      parseDivider: b ? parseInterpretOutput(readFileSync(b, "utf8")) : undefined,
    });
  });
  return out;
}

/**
 * git log parses a commit's trailers from its subject on: leading whitespace-only lines are skipped
 * (pretty.c's skip_blank_lines), as `git commit` would have stripped them. interpret-trailers reads a
 * file from its first byte, where a blank first line would be an empty subject. Compare like with like.
 */
const asLogReadsIt = (message: string): string => message.replace(/^(?:[ \t\r\v\f]*\n)+/, "");
const hasDivider = (message: string): boolean => /(^|\n)---[ \t\r\n\v\f]/.test(message);
/** git's scissors line; with a `---` line before it, git 2.39's interpret-trailers (divider on) never returns. */
const SCISSORS = /(^|\n)# -+ >8 -+/;

// ---- the property --------------------------------------------------------------------------

beforeAll(() => {
  for (const [k, v] of Object.entries(ISOLATED_GIT_ENV)) vi.stubEnv(k, v);
  repo = scratchRepo("proofgate-trailers-");
  scratchGit(repo.dir, ["commit", "-q", "--allow-empty", "-m", "base"]);
});
afterAll(() => {
  vi.unstubAllEnvs();
  repo.cleanup();
});

describe("trailers: listCommits agrees with git interpret-trailers --parse", () => {
  it(`on ${RUNS} generated commit messages (seed ${SEED})`, () => {
    // Pass 1 only collects the messages the property will see (same seed, same runs), so that git
    // runs once for all of them. Pass 2 checks each; a message outside the batch (while fast-check
    // shrinks a failure) is read on its own.
    const seen: string[] = [];
    fc.assert(
      fc.property(messageArb, (m) => {
        seen.push(m);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    const reads = readAll(seen);
    let withTrailers = 0;
    let dividerDiffers = 0;
    fc.assert(
      fc.property(messageArb, (message) => {
        const read = reads.get(message) ?? readAll([message]).get(message)!;
        expect(read.log).toEqual(read.parse);
        // Without a `---` line, interpret-trailers' divider changes nothing.
        if (!hasDivider(message) && read.parseDivider) expect(read.log).toEqual(read.parseDivider);
        if (read.log.length > 0) withTrailers++;
        if (read.parseDivider && JSON.stringify(read.parse) !== JSON.stringify(read.parseDivider)) dividerDiffers++;
      }),
      { seed: SEED, numRuns: RUNS },
    );
    expect(seen).toHaveLength(RUNS);
    // The generator reaches the interesting cases: many messages have trailers, some a `---` line that
    // a patch-mail parser would stop at.
    expect(withTrailers).toBeGreaterThan(RUNS / 4);
    expect(dividerDiffers).toBeGreaterThan(0);
  }, 120_000);

  it("examples: CRLF, folded values, comments, a `---` line and lookalike body lines", () => {
    const messages = [
      "Subject\r\n\r\nBody: not a trailer\r\n\r\nFreeze-Lease: human\r\nCo-authored-by: Claude\r\n  <noreply@anthropic.com>\r\n",
      "Subject\n\nSigned-off-by: A <a@x>\n# a comment inside the block\nFreeze-Lease: human\n",
      "Subject\n\nbody\n---\nnotes after a cut line\n\nFreeze-Lease: human\n",
      "Freeze-Lease: human\n",
      "Subject\n\nprose in the last paragraph\nFreeze-Lease: human\n",
      // Leading blank lines (only commit-tree and fast-import keep them) are not an empty subject.
      "\n \nFreeze-Lease: human\n",
    ];
    const reads = readAll(messages);
    const log = messages.map((m) => reads.get(m)!.log);
    expect(log).toEqual([
      [
        { key: "Freeze-Lease", value: "human" },
        // Unfolding joins `Claude\r` and `<noreply@…>` with a space and keeps the CR: git's reading, verbatim.
        { key: "Co-authored-by", value: "Claude\r <noreply@anthropic.com>" },
      ],
      [
        { key: "Signed-off-by", value: "A <a@x>" },
        { key: "Freeze-Lease", value: "human" },
      ],
      // git log does not treat `---` as the end of a commit message; interpret-trailers does unless --no-divider.
      [{ key: "Freeze-Lease", value: "human" }],
      // A subject is never a trailer; a paragraph with prose is not a trailer block.
      [],
      [],
      [],
    ]);
    expect(reads.get(messages[2]!)!.parseDivider).toEqual([]);
    for (const m of messages) expect(reads.get(m)!.log).toEqual(reads.get(m)!.parse);
  });
});
