#!/usr/bin/env node
// Interleaved A/B of `proofgate coverage --contexts` between two builds, on a data folder that
// contexts.mjs made (`node tooling/bench/contexts.mjs --data DIR` keeps it there), without the two-minute
// coverage.py runs: for "unchanged or better" between commits, not for the target against coverage.py.
//
//   node tooling/bench/contexts-ab.mjs DIR CLI_A CLI_B [RUNS]
//
// Both builds must give the same totals before anything is timed. Prints the medians and A / B.
import { spawnSync } from "node:child_process";
const [dir, a, b, runs = "9"] = process.argv.slice(2);
if (!dir || !a || !b || !(Number(runs) >= 1)) {
  process.stderr.write("usage: node tooling/bench/contexts-ab.mjs DIR CLI_A CLI_B [RUNS]\n");
  process.exit(2);
}
const args = [
  "coverage",
  "--freeze",
  "freeze.toml",
  "--contexts",
  ".coverage",
  "--report",
  "full.json",
  "--format",
  "json",
];
const time = (cli) => {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: dir, encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${cli}: exit ${r.status}\n${r.stderr}`);
  return [Number(process.hrtime.bigint() - t) / 1e6, r.stdout];
};
const A = [],
  B = [];
const [, outA] = time(a);
const [, outB] = time(b);
const pct = (s) => JSON.stringify(JSON.parse(s).totals ?? JSON.parse(s)).slice(0, 200);
if (pct(outA) !== pct(outB)) throw new Error(`the builds disagree:\n${pct(outA)}\n${pct(outB)}`);
for (let i = 0; i < Number(runs); i++) {
  if (i % 2 === 0) {
    A.push(time(a)[0]);
    B.push(time(b)[0]);
  } else {
    B.push(time(b)[0]);
    A.push(time(a)[0]);
  }
}
const med = (x) => [...x].sort((p, q) => p - q)[Math.floor(x.length / 2)];
console.log(`A ${a}: median ${med(A).toFixed(0)} ms (${Math.min(...A).toFixed(0)}-${Math.max(...A).toFixed(0)})`);
console.log(`B ${b}: median ${med(B).toFixed(0)} ms (${Math.min(...B).toFixed(0)}-${Math.max(...B).toFixed(0)})`);
console.log(`A / B: ${(med(A) / med(B)).toFixed(3)}`);
