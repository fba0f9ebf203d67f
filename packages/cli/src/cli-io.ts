// The CLI's one library type, in a file of its own that imports nothing: the published package has no
// dependencies (its bundle holds them), so its type declarations may not name another package.

/** The process's streams and clock, injected so tests run the CLI in-process. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** The machine's clock. Only the CLI reads it; core is handed `today`. */
  now: () => Date;
  /** Milliseconds since the process started, on a monotonic clock (`check --verbose`); undefined: from `now`. */
  elapsed?: (() => number) | undefined;
  cwd: string;
  /** The environment (CI variables, NO_COLOR): the process's, read once at the entry point (bin.ts). */
  env: Readonly<Record<string, string | undefined>>;
  /** Whether stdout is a terminal (colour, progress lines). */
  isTTY?: boolean | undefined;
  /** The terminal's width in columns, when stdout is one. */
  columns?: number | undefined;
}
