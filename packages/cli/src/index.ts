export { run, type CliIo } from "./main.js";
export {
  ciSnippet,
  proofgateCommand,
  CI_PLATFORMS,
  GITLAB_COVERAGE_REGEX,
  REPORT_DIR,
  REPORT_FILES,
  type CiSnippet,
} from "./ci-snippets.js";
