import { GateError } from "@proofgate/core/errors";

function single(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value))
    throw new GateError({
      code: "usage",
      message: `--${name} was given ${value.length} times`,
      fix: `give --${name} once`,
    });
  return String(value);
}

/** A whole-number flag, checked strictly: `1.5`, `-1`, `abc` and `1e3` are usage errors. */
export function intFlag(name: string, value: unknown, fallback: number): number {
  const text = single(name, value);
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(Number(text))) {
    throw new GateError({
      code: "usage",
      message: `--${name} ${JSON.stringify(text)} is not a whole number >= 0`,
      fix: `write e.g. --${name} 0`,
    });
  }
  return Number(text);
}

/** A percentage flag from 0 to 100. `nan` and `inf` are usage errors (the reference script lets NaN pass every floor). */
export function percentFlag(name: string, value: unknown, fallback: number): number {
  const text = single(name, value);
  if (text === undefined) return fallback;
  const n = Number(text);
  if (text.trim() === "" || !/^[+]?(\d+\.?\d*|\.\d+)$/.test(text.trim()) || !Number.isFinite(n) || n < 0 || n > 100) {
    throw new GateError({
      code: "usage",
      message: `--${name} ${JSON.stringify(text)} is not a percentage from 0 to 100`,
      fix: `write e.g. --${name} 70`,
    });
  }
  return n;
}

/** A path or other string flag given at most once. */
export function stringFlag(name: string, value: unknown, fallback: string): string {
  const text = single(name, value);
  if (text === undefined) return fallback;
  if (text.trim() === "")
    throw new GateError({ code: "usage", message: `--${name} is empty`, fix: `give --${name} a value` });
  return text;
}

/** An optional string flag given at most once. */
export function optionalFlag(name: string, value: unknown): string | undefined {
  return value === undefined ? undefined : stringFlag(name, value, "");
}

/** A duration such as `14d`, `2w` or `14` (days). */
export function daysFlag(name: string, value: unknown, fallback: number): number {
  const text = single(name, value);
  if (text === undefined) return fallback;
  const m = /^(\d+)\s*([dw]?)$/.exec(text.trim());
  if (!m)
    throw new GateError({
      code: "usage",
      message: `--${name} ${JSON.stringify(text)} is not a number of days`,
      fix: `write e.g. --${name} 14d or --${name} 2w`,
    });
  return Number(m[1]) * (m[2] === "w" ? 7 : 1);
}

/** A flag that may be repeated (`--report a --report b`): its values, in order; none when absent. */
export function listFlag(name: string, value: unknown): string[] {
  if (value === undefined) return [];
  const values = (Array.isArray(value) ? value : [value]).map(String);
  for (const v of values) {
    if (v.trim() === "")
      throw new GateError({ code: "usage", message: `--${name} is empty`, fix: `give --${name} a value` });
  }
  return values;
}

/** An optional whole-number flag: undefined when absent. */
export function optionalIntFlag(name: string, value: unknown, min = 0): number | undefined {
  if (value === undefined) return undefined;
  const text = single(name, value);
  // intFlag's own fix suggests 0, which a flag with a higher minimum refuses.
  if (text !== undefined && !/^\d+$/.test(text.trim())) {
    throw new GateError({
      code: "usage",
      message: `--${name} ${JSON.stringify(text)} is not a whole number >= ${min}`,
      fix: `write e.g. --${name} ${min}`,
    });
  }
  const n = intFlag(name, value, 0);
  if (n < min)
    throw new GateError({
      code: "usage",
      message: `--${name} must be at least ${min}`,
      fix: `write e.g. --${name} ${min}`,
    });
  return n;
}

/** `--timeout SECONDS` of the commands a command runs: 0 (no limit) to `max`; undefined when absent. */
export function timeoutFlag(value: unknown, max: number): number | undefined {
  const n = optionalIntFlag("timeout", value, 0);
  if (n !== undefined && n > max)
    throw new GateError({
      code: "usage",
      message: `--timeout ${n} is more than ${max} seconds`,
      fix: `write a number of seconds from 1 to ${max}, or 0 for no limit`,
    });
  return n;
}

/** `--publish-timeout SECONDS`: 1 to `max`; undefined when absent. */
export function publishTimeoutFlag(value: unknown, max: number): number | undefined {
  const n = optionalIntFlag("publish-timeout", value, 1);
  if (n !== undefined && n > max)
    throw new GateError({
      code: "usage",
      message: `--publish-timeout ${n} is more than ${max} seconds`,
      fix: `write a number of seconds from 1 to ${max}`,
    });
  return n;
}
