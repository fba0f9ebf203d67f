/** The formats `check` prints on stdout. Every one of them is also written to the out dir. */
export const CHECK_FORMATS = ["text", "json", "markdown"] as const;
/** `--platform` values. */
export const CHECK_PLATFORMS = ["auto", "local", "github", "gitlab", "buildkite"] as const;
