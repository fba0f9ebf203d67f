import { describe, expect, it } from "vitest";
import type { PublishTools } from "@proofgate/core";
import { annotationCommand, escapeData, escapeProperty } from "./workflow-commands.js";
import { createGithubPlatform } from "./platform.js";
import { expiredLease, reportWith } from "./__fixtures__/reports.js";

// The runner's reading of an output line (actions/runner ActionCommand.cs): a V2 command starts with `::`
// after leading whitespace (.NET's TrimStart: any Unicode white space); a legacy V1 command is `##[`
// anywhere in the line. Lines end at CR or LF.
const COMMANDS = [
  "set-env",
  "set-output",
  "save-state",
  "add-mask",
  "add-path",
  "add-matcher",
  "remove-matcher",
  "debug",
  "warning",
  "error",
  "notice",
  "group",
  "endgroup",
  "echo",
  "stop-commands",
];
function runnerCommands(output: string): { command: string; properties: Record<string, string>; data: string }[] {
  const unescape = (s: string, property: boolean) => {
    let out = s.replace(/%0D/g, "\r").replace(/%0A/g, "\n");
    if (property) out = out.replace(/%3A/g, ":").replace(/%2C/g, ",");
    return out.replace(/%25/g, "%");
  };
  const found: { command: string; properties: Record<string, string>; data: string }[] = [];
  for (const line of output.split(/\r\n|\r|\n/)) {
    const trimmed = line.replace(/^[\s\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/, "");
    if (trimmed.startsWith("::")) {
      const end = trimmed.indexOf("::", 2);
      if (end >= 0) {
        const info = trimmed.slice(2, end);
        const space = info.indexOf(" ");
        const command = space < 0 ? info : info.slice(0, space);
        if (COMMANDS.includes(command)) {
          const properties: Record<string, string> = {};
          if (space > 0)
            for (const p of info
              .slice(space + 1)
              .trim()
              .split(",")
              .filter(Boolean)) {
              const [k, v] = p.split(/=(.*)/s);
              if (k && v !== undefined) properties[k] = unescape(v, true);
            }
          found.push({ command, properties, data: unescape(trimmed.slice(end + 2), false) });
          continue;
        }
      }
    }
    const v1 = line.indexOf("##[");
    if (v1 >= 0) {
      const rb = line.indexOf("]", v1);
      const command = rb < 0 ? "" : line.slice(v1 + 3, rb).split(" ")[0]!;
      if (COMMANDS.includes(command))
        found.push({ command: `v1:${command}`, properties: {}, data: line.slice(rb + 1) });
    }
  }
  return found;
}

const HOSTILE = [
  "tests/test_x.py::test[\n::add-mask::secret]",
  "tests/test_x.py::test[\r::stop-commands::pwned]",
  "tests/test_x.py::test[\r\n  ::error file=evil.py,line=1::fake]",
  "tests/test_x.py::test[##[stop-commands]token]",
  "tests/test_x.py::test[##[set-output name=decision;]MERGE]",
  "tests/test_x.py::test[%0A::warning::encoded]",
  "tests/test_x.py::test[\u2028::notice::u2028]",
  "tests/test_x.py::test[\u0085::notice::nel]",
  "tests/test_x.py::test[\u001b[2J\u001b[32mMERGE]",
  "a,b:c=d::e%25f",
];

describe("workflow commands from patch text", () => {
  it("escape as the runner unescapes", () => {
    expect(escapeData("50% \r\n done")).toBe("50%25 %0D%0A done");
    expect(escapeProperty("a:b,c%\n")).toBe("a%3Ab%2Cc%25%0A");
    expect(annotationCommand({ level: "error", file: "freeze.toml", line: 3, title: "t", message: "m" })).toBe(
      "::error file=freeze.toml,line=3,title=t::m\n",
    );
    expect(annotationCommand({ level: "warning", message: "only" })).toBe("::warning::only\n");
  });

  it("hostile nodeids, owners, reasons, files and warnings start no command of their own", async () => {
    const findings = HOSTILE.flatMap((h, i) => [
      expiredLease(h, h, i + 1),
      {
        reason: "protected_path" as const,
        message: `touches ${h}`,
        file: h,
        line: 2,
        commit: "c".repeat(40),
        author: h,
        fix: h,
      },
    ]);
    const report = reportWith(findings, {
      warnings: HOSTILE.map((message) => ({ code: "universe_invalid" as const, message })),
    });
    let stdout = "";
    const tools: PublishTools = {
      env: { GITHUB_ACTIONS: "true" },
      writeArtifact: () => "",
      log: () => {},
      stdout: (t) => (stdout += t),
      comment: false,
    };
    await createGithubPlatform().publish(report, { provider: "github" }, tools);
    const commands = runnerCommands(stdout);
    // One command per annotation, each one proofgate's, and nothing else.
    expect(commands).toHaveLength(findings.length + HOSTILE.length);
    expect(commands.map((c) => c.command)).toEqual([
      ...Array(findings.length).fill("error"),
      ...Array(HOSTILE.length).fill("warning"),
    ]);
    expect(
      stdout
        .split("\n")
        .filter(Boolean)
        .every((l) => /^::(error|warning) /.test(l) || /^::warning::/.test(l)),
    ).toBe(true);
    expect(stdout).not.toMatch(/##\[/);
    expect(stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u0085\u2028\u2029]/);
    // The hostile text is still there to read, made inert.
    expect(commands[0]!.data).toContain("test[\\x0a::add-mask::secret]");
    expect(commands[1]!.properties).toEqual({
      file: "tests/test_x.py::test[\\x0a::add-mask::secret]",
      line: "2",
      title: "proofgate: protected_path",
    });
    expect(commands.at(-1)!.data).toBe("a,b:c=d::e%25f");
  });

  it("a hostile nodeid or owner cannot forge the comment's marker or break the Markdown", async () => {
    const { renderComment, COMMENT_MARKER } = await import("./pr-comment.js");
    const report = reportWith([
      expiredLease(
        `x<!-- proofgate:report (edited in place by every run; do not copy this line) -->`,
        "@org/everyone",
        1,
      ),
    ]);
    const body = renderComment(report.markdown);
    expect(body.split(COMMENT_MARKER)).toHaveLength(2);
    expect(body.slice(COMMENT_MARKER.length)).not.toContain("<!--");
    expect(body).not.toContain("@org");
  });
});
