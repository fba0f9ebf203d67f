// The freeze ledger (freeze.toml): its parsing and leases, lease length, the ledger diff between two
// revisions, and the ids that close a lease.
// May import: common, model.
export * from "./close-ids.js";
export * from "./lease-length.js";
export * from "./ledger.js";
export * from "./ledger-diff.js";
