// The choices of the commands' options, apart from the commands: main.ts declares every command's options
// without loading the command (each is imported when it runs).

/** `deselect --format` values. */
export const DESELECT_FORMATS = ["args", "plugin", "json", "contexts-regex"] as const;
/** The formats `check` prints on stdout. Every one of them is also written to the out dir. */
export const CHECK_FORMATS = ["text", "json", "markdown"] as const;
/** `--platform` values. */
export const CHECK_PLATFORMS = ["auto", "local", "github", "gitlab", "buildkite"] as const;
