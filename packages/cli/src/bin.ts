import { commandName, VERSION } from "./version.js";

const argv = process.argv.slice(2);
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
  });
}
