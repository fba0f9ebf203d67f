// Helpers for tests of proofgate and of tools built on it: scratch git repositories in temp folders.
export * from "./git-scratch.js";
export * from "./signing-keys.js";
export * from "./evidence-stamp.js";
