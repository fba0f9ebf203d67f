declare const __PROOFGATE_VERSION__: string | undefined;

/** The CLI's version, set by the bundler from package.json. */
export const VERSION: string = typeof __PROOFGATE_VERSION__ === "string" ? __PROOFGATE_VERSION__ : "0.0.0-dev";

/**
 * The command a command line names: its first word that is not a flag (a guess when a flag's value
 * comes first; good enough to prepare for a command, never to parse it: yargs does that).
 */
export function commandName(argv: readonly string[]): string | undefined {
  return argv.find((a) => !a.startsWith("-"));
}
