#!/usr/bin/env node
// A summary of a V8 .cpuprofile (node --cpu-prof): the top functions by self time, and the bundle's
// functions by inclusive time (each counted once per sample, however deep it recurses).
//
//   node tooling/bench/cpuprofile.mjs FILE.cpuprofile [N]
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The top self-time entries of a .cpuprofile, by function and by package. */
export function summariseProfile(file) {
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const dt = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i++) {
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (dt[i] ?? 0));
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const fns = new Map();
  const parents = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parents.set(c, n.id);
  for (const [id, us] of self) {
    const f = byId.get(id).callFrame;
    const where = f.url ? `${f.url.split("/").slice(-1)[0]}:${f.lineNumber + 1}` : "";
    const key = `${f.functionName || "(anonymous)"} ${where}`.trim();
    fns.set(key, (fns.get(key) ?? 0) + us);
  }
  // Inclusive time of named functions of the bundle (the first frame per sample stack counted once).
  const inclusive = new Map();
  for (const [id, us] of self) {
    const seen = new Set();
    for (let n = id; n !== undefined; n = parents.get(n)) {
      const f = byId.get(n).callFrame;
      if (!f.url.includes("proofgate") && !f.url.includes("chunk-")) continue;
      const key = f.functionName || "(anonymous)";
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + us);
    }
  }
  const top = (m, n) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => ({ name, ms: Math.round(us / 1000), share: +(us / total).toFixed(3) }));
  return { total_ms: Math.round(total / 1000), self: top(fns, 25), inclusive: top(inclusive, 40) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, n = "30"] = process.argv.slice(2);
  if (!file) {
    process.stderr.write("usage: node tooling/bench/cpuprofile.mjs FILE.cpuprofile [N]\n");
    process.exit(2);
  }
  const s = summariseProfile(file);
  const show = (x) => `${String(x.ms).padStart(7)} ms ${(x.share * 100).toFixed(1).padStart(5)} %  ${x.name}`;
  process.stdout.write(`total ${s.total_ms} ms\n\ninclusive (bundle functions):\n`);
  process.stdout.write(`${s.inclusive.slice(0, Number(n)).map(show).join("\n")}\n\nself:\n`);
  process.stdout.write(`${s.self.slice(0, Number(n)).map(show).join("\n")}\n`);
}
