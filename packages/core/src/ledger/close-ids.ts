/** How a collected id resembles a leased id that is not in the universe. */
export interface CloseId {
  id: string;
  why: "other parameters" | "same name elsewhere";
}

/** The id without its trailing `[params]`. */
function withoutParams(id: string): string {
  if (!id.endsWith("]")) return id;
  const open = id.indexOf("[", id.lastIndexOf("::"));
  return open === -1 ? id : id.slice(0, open);
}

/** The test function's name: the last `::` segment, without parameters. */
function functionName(id: string): string {
  const base = withoutParams(id);
  return base.slice(base.lastIndexOf("::") + 2);
}

/**
 * Finds collected ids that a stale lease probably meant: the same test with other parameter
 * brackets (pytest 8 renamed numbered duplicates), or the same function name in another class or file.
 */
export class CloseIdIndex {
  private readonly byBase = new Map<string, string[]>();
  private readonly byName = new Map<string, string[]>();

  constructor(ids: Iterable<string>) {
    for (const id of ids) {
      push(this.byBase, withoutParams(id), id);
      push(this.byName, functionName(id), id);
    }
  }

  /** At most `limit` suggestions, the closest kind first. */
  suggest(nodeid: string, limit = 5): CloseId[] {
    const base = withoutParams(nodeid);
    const out: CloseId[] = [];
    for (const id of this.byBase.get(base) ?? []) if (id !== nodeid) out.push({ id, why: "other parameters" });
    for (const id of this.byName.get(functionName(nodeid)) ?? []) {
      if (withoutParams(id) !== base) out.push({ id, why: "same name elsewhere" });
    }
    return out.slice(0, limit);
  }
}

function push(map: Map<string, string[]>, key: string, id: string): void {
  const list = map.get(key);
  if (list) list.push(id);
  else map.set(key, [id]);
}
