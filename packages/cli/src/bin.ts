import module from "node:module";
import { VERSION } from "./version.js";
import type { CliIo } from "./io.js";

// Node 22.1+ keeps V8's compiled code of the chunks a command loads next in a cache on disk (in the folder
// of NODE_COMPILE_CACHE, else the temp folder; NODE_DISABLE_COMPILE_CACHE turns it off), so the next run
// skips compiling them. Older Nodes have no such function: nothing happens.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

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
  elapsed: () => performance.now(),
  cwd: process.cwd(),
  env: process.env,
  isTTY: process.stdout.isTTY === true,
  columns: process.stdout.columns,
};
if (argv.length === 1 && argv[0] === "--version") {
  // The fast path: a version probe loads neither yargs nor the policy code.
  process.stdout.write(`${VERSION}\n`);
} else {
  // A plain `deselect` or `lock` command line runs without yargs (deselect-entry.ts, plain-args.ts): each
  // runs on every CI run, and yargs (its parser, every command's options, its help text) was a good part
  // of its start-up (BENCHMARKS.md, issue 25 item 3). Every other command line goes to yargs, in main.ts.
  const lock = argv[0] === "lock" ? (await import("./plain-args.js")).plainLockArgs(argv) : undefined;
  if (lock) {
    // The hash workers take longer to start than the command takes to load and walk the tree: first.
    (await import("@proofgate/gate/hash-workers")).startHashWorkers();
    process.exitCode = await (await import("./lock-entry.js")).runLockCommand(lock, io);
  } else {
    const entry =
      argv[0] === "deselect" || argv[0] === "emit-deselect" ? await import("./deselect-entry.js") : undefined;
    const deselect = entry?.plainDeselectArgs(argv);
    process.exitCode =
      entry && deselect ? entry.runDeselectCommand(deselect, io) : await (await import("./main.js")).run(argv, io);
  }
}
