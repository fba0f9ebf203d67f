// Fills the __PROOFGATE_<NAME>__ slots of a pytest plugin's Python (the .py files in this folder). Each
// slot is valid Python in the .py file, so flake8 and pytest read the file as it is:
//   "__PROOFGATE_<NAME>__"                 a quoted slot: replaced, quotes and all, by a Python expression
//   <indent><anything with a quoted slot>,  a line of its own in a list: replaced by one line per item
//   __PROOFGATE_<NAME>__                   bare, in a comment: replaced by plain text
// The tests' Python (tests/conftest.py) fills them the same way.

/** What goes into a plugin's slots, by slot name (without the __PROOFGATE_ and __). */
export interface PythonSlots {
  /** Bare slots: plain text (in comments). */
  text?: Readonly<Record<string, string>>;
  /** Quoted slots: Python expressions. */
  values?: Readonly<Record<string, string>>;
  /** List lines: Python expressions, one line (and a trailing comma) each. */
  lists?: Readonly<Record<string, readonly string[]>>;
}

const SLOT = /^([ \t]+)[^\n]*"__PROOFGATE_([A-Z_]+?)__"[^\n]*,\n|"__PROOFGATE_([A-Z_]+?)__"|__PROOFGATE_([A-Z_]+?)__/gm;

/** `template` with every slot filled; throws naming the slot when one has no value (a renderer's bug). */
export function fillPythonSlots(template: string, slots: PythonSlots, who: string): string {
  return template.replace(SLOT, (match, indent?: string, list?: string, value?: string, text?: string) => {
    const filled =
      list !== undefined
        ? slots.lists?.[list]?.map((item) => `${indent}${item},\n`).join("")
        : value !== undefined
          ? slots.values?.[value]
          : slots.text?.[text!];
    if (filled === undefined) throw new Error(`${who}: no value for the slot in ${JSON.stringify(match.trim())}`);
    return filled;
  });
}
