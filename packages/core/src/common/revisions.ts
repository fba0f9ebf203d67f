/** A full git object name (SHA-1 or SHA-256), lower-case hex. */
export const FULL_SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** True for a full object name, never the all-zero "no commit" of a created or deleted branch. */
export function isFullSha(value: unknown): value is string {
  return typeof value === "string" && FULL_SHA.test(value) && !/^0+$/.test(value);
}

/** A revision as a reader wants it: a full object name cut to 12 characters, any other name as given. */
export function shortRevision(revision: string): string {
  return FULL_SHA.test(revision) ? revision.slice(0, 12) : revision;
}
