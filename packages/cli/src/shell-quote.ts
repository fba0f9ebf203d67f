// One word of a command line the CLI prints for a POSIX shell (`record`'s command, the pre-push hook): as
// it is when no shell would read it otherwise, else in single quotes.

/** `word` as one shell word. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
