// Workflow commands: https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands
// The runner (actions/runner, ActionCommand.cs) reads every output line as a command when, after leading
// whitespace, it starts with `::` (and in the legacy form when it contains `##[` anywhere). Only the text
// proofgate writes may start a line: every value from the patch is escaped so it stays inside its own.
import { terminalSafe } from "@proofgate/core";

/** A workflow command's level: the annotations the runner shows on the run and on the files. */
export type AnnotationCommand = "error" | "warning" | "notice";

/**
 * Patch text made inert for the log: control characters (escape sequences, line breaks) become
 * `\xNN`, and the legacy `##[` prefix is broken with a zero-width space.
 */
export function inertText(text: string): string {
  return terminalSafe(text).replace(/##\[/g, "#\u200b#[");
}

/** A command's message: `%`, CR and LF escaped as the runner unescapes them (%25, %0D, %0A). */
export function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** A command's property value: as data, plus `:` and `,`, which would end the value or the properties. */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** One annotation, where it points and what it says. */
export interface CommandAnnotation {
  level: AnnotationCommand;
  file?: string | undefined;
  line?: number | undefined;
  title?: string | undefined;
  message: string;
}

/**
 * One workflow command line (with its newline). The message may hold line breaks of proofgate's own
 * (they are escaped, so the runner shows them); the caller passes patch text through `inertText` first.
 */
export function annotationCommand(a: CommandAnnotation): string {
  const props: string[] = [];
  if (a.file) props.push(`file=${escapeProperty(inertText(a.file))}`);
  if (a.file && a.line !== undefined && Number.isSafeInteger(a.line) && a.line > 0) props.push(`line=${a.line}`);
  if (a.title) props.push(`title=${escapeProperty(inertText(a.title))}`);
  return `::${a.level}${props.length ? ` ${props.join(",")}` : ""}::${escapeData(a.message)}\n`;
}
