// The library entry: run the CLI in-process. Its declarations import nothing outside this package.
export { run, type CliIo } from "./main.js";
