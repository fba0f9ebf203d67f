// For each of GitHub's own JavaScript actions, the first major whose action.yml says `runs.using: node24`;
// every earlier major runs on node20 (or older), which GitHub-hosted runners dropped on 2026-09-16.
// Read from the actions' release notes and the upgrade threads that checked each action.yml:
// checkout v5.0.0 (actions/checkout#2238), setup-node v5 (node24 runtime), setup-python v6 (v5.x is
// node20), upload-artifact v6.0.0 (actions/upload-artifact#745: v5 still declared node20),
// download-artifact v7.0.0, cache v5.

/** The first node24 major of each action. */
export const FIRST_NODE24_MAJOR: Readonly<Record<string, number>> = {
  "actions/checkout": 5,
  "actions/setup-node": 5,
  "actions/setup-python": 6,
  "actions/upload-artifact": 6,
  "actions/download-artifact": 7,
  "actions/cache": 5,
};

/**
 * The `uses:` of a workflow that would run on Node 20: an action of the table above at an older major,
 * or one the table does not know (so a new action is looked up before it is used), pinned by anything
 * but a major tag. `allowed` names other actions that are not node20 JavaScript actions (proofgate's own).
 */
export function node20Uses(uses: readonly string[], allowed: readonly string[] = []): string[] {
  return uses.filter((u) => {
    const [action, ref] = u.split("@");
    if (action === undefined || ref === undefined) return true;
    if (allowed.includes(action)) return false;
    const first = FIRST_NODE24_MAJOR[action];
    const major = /^v(\d+)$/.exec(ref)?.[1];
    return first === undefined || major === undefined || Number(major) < first;
  });
}
