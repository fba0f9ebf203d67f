// A stand-in for `buildkite-agent` in tests (on PATH as a `buildkite-agent` script that runs this file
// with the test's Node). It accepts exactly the documented commands and flags that proofgate may use
// (https://buildkite.com/docs/agent/cli/reference/annotate, .../meta-data), refuses anything else as
// the real agent does (exit 1, a message on stderr), and appends what it received, argv and stdin, as
// one JSON line to $STUB_AGENT_LOG. $STUB_AGENT_FAIL=<command> makes that command fail after recording.
// Artifacts (https://buildkite.com/docs/agent/cli/reference/artifact): `artifact download <query> <dest>`
// copies the files of $STUB_AGENT_ARTIFACTS that the query matches (exit 1 when none does), and
// `artifact upload <pattern>` copies the matching files of the working directory into $STUB_AGENT_UPLOADS.
import { appendFileSync, cpSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";

// Read stdin as a stream: readFileSync(0) on a pipe throws EAGAIN when the writer is slow.
const readStdin = async () => {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
};

const argv = process.argv.slice(2);
const fail = (message) => {
  process.stderr.write(`buildkite-agent: fatal: ${message}\n`);
  process.exit(1);
};

// Flags every subcommand takes; true: the flag takes a value.
const GLOBAL = { "--no-color": false, "--debug": false, "--log-level": true, "--experiment": true, "--profile": true, "--agent-access-token": true, "--endpoint": true, "--no-http2": false, "--debug-http": false, "--trace-http": false, "--redacted-vars": true };
const COMMANDS = {
  annotate: { flags: { ...GLOBAL, "--context": true, "--style": true, "--append": false, "--priority": true, "--job": true, "--scope": true }, min: 0, max: 1 },
  "meta-data set": { flags: { ...GLOBAL, "--job": true }, min: 1, max: 2 },
  "artifact upload": { flags: { ...GLOBAL, "--job": true, "--content-type": true, "--follow-symlinks": false }, min: 1, max: 2 },
  "artifact download": { flags: { ...GLOBAL, "--step": true, "--build": true, "--include-retried-jobs": false }, min: 2, max: 2 },
};

const name = argv[0] === "meta-data" || argv[0] === "artifact" ? `${argv[0]} ${argv[1] ?? ""}` : argv[0] ?? "";
const command = COMMANDS[name];
if (!command) fail(`unknown command ${JSON.stringify(name)}`);
const rest = argv.slice(name.split(" ").length);
const flags = {};
const args = [];
for (let i = 0; i < rest.length; i++) {
  const token = rest[i];
  if (!token.startsWith("--")) {
    args.push(token);
    continue;
  }
  const [flag, inline] = token.includes("=") ? [token.slice(0, token.indexOf("=")), token.slice(token.indexOf("=") + 1)] : [token, undefined];
  if (!(flag in command.flags)) fail(`flag provided but not defined: ${flag}`);
  if (command.flags[flag]) {
    const value = inline ?? rest[++i];
    if (value === undefined) fail(`flag needs an argument: ${flag}`);
    flags[flag] = value;
  } else flags[flag] = true;
}
if (args.length < command.min || args.length > command.max) fail(`${name}: expected ${command.min} to ${command.max} arguments, got ${args.length}`);
if (!process.env.BUILDKITE_AGENT_ACCESS_TOKEN && !flags["--agent-access-token"]) fail("missing agent access token (BUILDKITE_AGENT_ACCESS_TOKEN)");
if (!process.env.BUILDKITE_JOB_ID && !flags["--job"]) fail("missing job (BUILDKITE_JOB_ID)");

let stdin = null;
if (name === "annotate") {
  if (flags["--style"] !== undefined && !["success", "info", "warning", "error"].includes(flags["--style"])) fail(`invalid style ${flags["--style"]}`);
  if (flags["--context"] !== undefined && flags["--context"].length > 100) fail("the context is longer than 100 characters");
  if (flags["--priority"] !== undefined && !/^([1-9]|10)$/.test(flags["--priority"])) fail("priority must be 1 to 10");
  if (flags["--scope"] !== undefined && !["build", "job"].includes(flags["--scope"])) fail("scope must be build or job");
  if (args.length === 0 && !process.stdin.isTTY) stdin = await readStdin();
  const body = args[0] ?? stdin ?? "";
  if (Buffer.byteLength(body, "utf8") > 1024 * 1024) fail("the annotation body is larger than 1 MiB");
} else if (name.startsWith("artifact")) {
  // The paths of `dir` (relative, with /) that the glob matches: * within a folder, `**/` zero or more folders, ** across folders.
  const matching = (dir, glob) => {
    const literal = (part) => part.split("*").map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join("[^/]*");
    const pattern = new RegExp(`^${glob.split("**/").map((segment) => segment.split("**").map(literal).join(".*")).join("(?:.*/)?")}$`);
    const walk = (d) => readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)]));
    return walk(dir).map((p) => relative(dir, p)).filter((p) => pattern.test(p));
  };
  const [from, to] = name === "artifact download" ? [process.env.STUB_AGENT_ARTIFACTS, args[1]] : [process.cwd(), process.env.STUB_AGENT_UPLOADS];
  const found = from ? matching(from, args[0]) : [];
  if (found.length === 0) fail(`${name}: no artifacts found matching ${JSON.stringify(args[0])}`);
  for (const path of found) {
    if (!to) break;
    mkdirSync(dirname(join(to, path)), { recursive: true });
    cpSync(join(from, path), join(to, path));
  }
} else {
  const value = args[1] ?? (process.stdin.isTTY ? "" : (stdin = await readStdin()));
  if (args[0].trim() === "") fail("the key is empty");
  if (value.trim() === "") fail("the value is empty or only whitespace");
}

if (process.env.STUB_AGENT_LOG) appendFileSync(process.env.STUB_AGENT_LOG, `${JSON.stringify({ argv, stdin })}\n`);
if (process.env.STUB_AGENT_FAIL === name.split(" ")[0]) fail(`${name}: POST https://agent.buildkite.com/v3/...: 503 Service Unavailable`);
