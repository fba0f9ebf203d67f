// An input's bytes as UTF-8 text: anything else is an error naming the file, never a guess.
import { GateError } from "@proofgate/core/errors";
import type { InputBytes, InputFile } from "./ports.js";

/** The bytes as UTF-8 text (a BOM kept as it is); not UTF-8: a GateError naming the file. */
export function asText(input: InputBytes, what: string): InputFile {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(input.bytes);
  } catch {
    throw new GateError({
      code: "file_unreadable",
      file: input.path,
      message: `${what} is not UTF-8 text`,
      fix: "write it as UTF-8",
    });
  }
  return {
    path: input.path,
    text,
    get sha256() {
      return input.sha256;
    },
  };
}
