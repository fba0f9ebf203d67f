import type { RunFinding, RunFindingLine } from "./findings.js";

/** Lines of one file to scan: a diff's added lines, or a whole file. */
export interface ScannedFile {
  /** Repository-relative. Only Python files (`.py`) are scanned. */
  path: string;
  lines: ReadonlyArray<{ line: number; text: string }>;
}

interface Pattern {
  what: string;
  re: RegExp;
  /** Only in test modules and conftest.py, where the name is pytest's and not the project's own. */
  testCodeOnly?: boolean;
}

const REPORT = String.raw`(?:TestReport|CollectReport|BaseReport|CallInfo)`;

/** What runner_tampering looks for, each with what it means in the finding. */
const PATTERNS: readonly Pattern[] = [
  { what: "imports pytest's internals (_pytest)", re: /^\s*(?:from\s+_pytest\b|import\s+(?:[\w.]+\s*,\s*)*_pytest\b)/ },
  { what: "imports pytest's internals (_pytest)", re: /(?:__import__|import_module)\s*\(\s*["']_pytest\b/ },
  { what: "imports pluggy's internals", re: /^\s*(?:from\s+pluggy\._|import\s+pluggy\._)|\bpluggy\._\w/ },
  {
    what: "reaches pytest's modules through sys.modules",
    re: /sys\.modules\s*(?:\[|\.get\s*\()\s*["'](?:_pytest|pytest|pluggy)\b/,
  },
  { what: "patches pytest's report objects", re: new RegExp(String.raw`\b${REPORT}\s*\.\s*\w+\s*=(?!=)`) },
  { what: "patches pytest's report objects", re: new RegExp(String.raw`setattr\s*\(\s*(?:[\w.]+\.)?${REPORT}\b`) },
  {
    what: "patches pytest's report objects",
    re: new RegExp(String.raw`monkeypatch\.setattr\s*\([^)]*(?:\b${REPORT}\b|["'](?:_pytest|pluggy)\.)`),
  },
  { what: "rewrites a test report", re: /\.(?:wasxfail|longrepr)\s*=(?!=)/ },
  { what: "rewrites a test report", re: /\.outcome\s*=(?!=)/, testCodeOnly: true },
  { what: "forces a hook's result", re: /\.force_(?:result|exception)\s*\(/ },
  { what: "sets pytest's exit status", re: /\.exitstatus\s*=(?!=)/ },
  {
    what: "implements a hook that decides what runs or what a result is",
    re: /\bdef\s+pytest_(?:runtest_makereport|runtest_logreport|report_teststatus|runtest_protocol|runtest_call|runtest_setup|runtest_teardown|pyfunc_call|sessionfinish|collection_modifyitems|pycollect_makeitem|collectreport|make_collect_report|runtestloop|deselected|ignore_collect|collect_file|collection)\s*\(/,
  },
  { what: "unregisters or blocks pytest plugins", re: /pluginmanager\s*\.\s*(?:unregister|set_blocked)\s*\(/ },
  {
    what: "reads the gate's run variables or another process's environment",
    re: /PROOFGATE_RUN_|proofgate_run_|\/proc\/[^"'\s]*environ/,
  },
  {
    // The plugin's module state (what it records, where the repository's top is): found by walking
    // sys.modules for a module that has it, whatever the module's name.
    what: "reaches the gate's plugin state",
    re: /\._(?:RUN|RUN_ENV|SHIPPED|AUDIT)\b|["']_(?:RUN|RUN_ENV|SHIPPED|AUDIT)["']/,
  },
  {
    // A profile loaded from a module the tests import lowers every property's examples, and no property
    // test file changes (conftest.py and pytest's settings are protected paths already).
    what: "changes Hypothesis's settings for every property (a profile)",
    re: /\bsettings\s*\.\s*(?:register_profile|load_profile)\s*\(|\bsettings\s*\.\s*_(?:current_profile|profiles)\b|\bsettings\s*\.\s*default\s*=(?!=)/,
  },
  {
    what: "changes the tracer coverage measures with",
    re: /\b(?:sys\.settrace|sys\.setprofile|threading\.settrace|threading\.setprofile)\s*\(|\bsys\.monitoring\.(?:set_events|register_callback|free_tool_id|use_tool_id)\b/,
  },
];

const TEST_CODE = /(?:^|\/)(?:test_[^/]*|[^/]*_test|conftest)\.py$/;

/** The line without a trailing `# comment` (a `#` inside a string literal is kept). */
function code(text: string): string {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote !== undefined) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === "#") return text.slice(0, i);
  }
  return text;
}

/** A Python line without its trailing `# comment`, for other scans of added lines. */
export const codeOf = code;

/**
 * `runner_tampering`: Python lines that import pytest's or pluggy's internals, patch or rewrite report
 * objects, force hook results, set the exit status, implement result hooks, unregister plugins, read
 * the gate's run variables, change Hypothesis's settings profile, or change the tracer coverage relies on.
 * One finding per file, with each line.
 */
export function scanRunnerTampering(files: readonly ScannedFile[]): RunFinding[] {
  const out: RunFinding[] = [];
  for (const file of files) {
    if (!file.path.endsWith(".py")) continue;
    const testCode = TEST_CODE.test(file.path);
    const hits: Array<RunFindingLine & { what: string }> = [];
    for (const { line, text } of file.lines) {
      const body = code(text);
      if (body.trim() === "") continue;
      const pattern = PATTERNS.find((p) => (testCode || !p.testCodeOnly) && p.re.test(body));
      if (pattern) hits.push({ path: file.path, line, text: text.trim().slice(0, 200), what: pattern.what });
    }
    if (hits.length === 0) continue;
    const whats = [...new Set(hits.map((h) => h.what))];
    out.push({
      code: "runner_tampering",
      paths: [file.path],
      lines: hits.map(({ path, line, text }) => ({ path, line, text })),
      message: `${file.path} ${whats
        .map(
          (w) =>
            `${w} (line ${hits
              .filter((h) => h.what === w)
              .map((h) => h.line)
              .join(", ")})`,
        )
        .join("; ")}`,
      fix: "remove it: code that changes how pytest runs or reports tests needs a human commit with `Gate-Change: human`",
    });
  }
  return out;
}
