export { run, type CliIo } from "./main.js";
