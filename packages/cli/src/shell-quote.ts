// One word of a command line the CLI prints for a POSIX shell (`record`'s command, the pre-push hook): core's,
// which the platforms' CI snippets use too.
export { shellQuote } from "@proofgate/core";
