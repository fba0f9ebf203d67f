import { commandName, VERSION } from "./version.js";

const argv = process.argv.slice(2);
// A reader that stops early (`proofgate ledger list | head`) closes the pipe: that ends the output,
// it is not a crash. The exit code stays what the command decided.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
  });
}
if (argv.length === 1 && argv[0] === "--version") {
  // The fast path: a version probe loads neither yargs nor the policy code.
  process.stdout.write(`${VERSION}\n`);
} else {
  // `lock` hashes in worker threads, which take longer to start than yargs: start them first.
  if (commandName(argv) === "lock") (await import("./hash-workers.js")).startHashWorkers();
  const { run } = await import("./main.js");
  process.exitCode = await run(argv, {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    now: () => new Date(),
    cwd: process.cwd(),
    env: process.env,
    isTTY: process.stdout.isTTY === true,
  });
}
