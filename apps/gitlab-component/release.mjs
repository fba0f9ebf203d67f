// Builds the GitLab catalog project's tree: GitLab resolves `include: component:` only from a catalog
// project's own templates/, so a release of this folder is a project of its own. templates/proofgate.yml,
// the README (the catalog shows it), LICENSE, and the project's .gitlab-ci.yml, whose job on a version tag
// creates the release that publishes the version to the CI/CD catalog. .github/workflows/release.yml
// pushes the tree and tags it with the CLI's version.
//
//   node apps/gitlab-component/release.mjs [--out DIR]   (default apps/gitlab-component/release)
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = join(here, "..", "..");
const outFlag = process.argv.indexOf("--out");
const out = resolve(outFlag >= 0 ? process.argv[outFlag + 1] : join(here, "release"));

const version = JSON.parse(readFileSync(join(root, "packages", "cli", "package.json"), "utf8")).version;
const template = readFileSync(join(here, "templates", "proofgate.yml"), "utf8");
// The component of a release runs the CLI of that release by default (pnpm snippets keeps the two equal).
if (!template.includes(`    version:\n      type: string\n      default: "${version}"\n`)) {
  process.stderr.write(
    `release:gitlab-component: templates/proofgate.yml's version default is not ${version}: run pnpm snippets\n`,
  );
  process.exit(2);
}

/** The catalog project's own pipeline: a semantic-version tag becomes a release, which publishes it to the catalog. */
const CATALOG_CI = `# The catalog project's pipeline (written by proofgate's pnpm release:gitlab-component; edit it there).
# A tag like 1.2.3 becomes a GitLab release, and a release of a catalog project publishes that version
# of templates/ to the CI/CD catalog: https://docs.gitlab.com/ci/components/#publish-a-new-release
create-release:
  stage: deploy
  image: registry.gitlab.com/gitlab-org/cli:latest
  rules:
    - if: $CI_COMMIT_TAG =~ /^\\d+\\.\\d+\\.\\d+$/
  script: echo "Releasing proofgate's component $CI_COMMIT_TAG"
  release:
    tag_name: $CI_COMMIT_TAG
    description: "proofgate $CI_COMMIT_TAG: runs @proofgate/cli@$CI_COMMIT_TAG. Changes: https://github.com/proofgate/proofgate/blob/main/packages/cli/CHANGELOG.md"
`;

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "templates"), { recursive: true });
writeFileSync(join(out, "templates", "proofgate.yml"), template);
cpSync(join(here, "README.md"), join(out, "README.md"));
cpSync(join(here, "example"), join(out, "example"), { recursive: true });
cpSync(join(root, "LICENSE"), join(out, "LICENSE"));
writeFileSync(join(out, ".gitlab-ci.yml"), CATALOG_CI);
process.stdout.write(`release:gitlab-component: the catalog project ${version} is in ${out}\n`);
