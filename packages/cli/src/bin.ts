import { commandName, VERSION } from "./version.js";
import type { CliIo } from "./io.js";

const argv = process.argv.slice(2);
// A reader that stops early (`proofgate ledger list | head`) closes the pipe: that ends the output,
// it is not a crash. The exit code stays what the command decided.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
  });
}
const io: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  now: () => new Date(),
  cwd: process.cwd(),
  env: process.env,
  isTTY: process.stdout.isTTY === true,
};
if (argv.length === 1 && argv[0] === "--version") {
  // The fast path: a version probe loads neither yargs nor the policy code.
  process.stdout.write(`${VERSION}\n`);
} else {
  let code: number | undefined;
  if (commandName(argv) === "lock") {
    // `lock` hashes in worker threads, which take longer to start than the command line takes to read:
    // start them first. A plain command line then runs without yargs (lock-entry.ts).
    (await import("./hash-workers.js")).startHashWorkers();
    code = await (await import("./lock-entry.js")).runPlainLock(argv, io);
  }
  process.exitCode = code ?? (await (await import("./main.js")).run(argv, io));
}
