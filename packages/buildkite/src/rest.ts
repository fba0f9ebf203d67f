// https://buildkite.com/docs/apis/rest-api/annotations
// The REST fallback for the annotation, where the job has no `buildkite-agent` (a container without
// it): POST /v2/organizations/{org}/pipelines/{pipeline}/builds/{number}/annotations, token scope
// `write_builds`. Only one annotation per build has a given context, so a re-run replaces it.
import type { Env } from "@proofgate/core";

/** Buildkite's REST API. */
export const DEFAULT_API_URL = "https://api.buildkite.com";

/** The annotation a build shows. */
export interface AnnotationRequest {
  body: string;
  style: "success" | "info" | "warning" | "error";
  context: string;
}

/** Where the build is, for the REST path. */
export interface BuildAddress {
  organization: string;
  pipeline: string;
  number: string;
}

/** The REST settings from the environment, or why there are none. */
export type RestSettings =
  { ok: true; token: string; apiUrl: string; build: BuildAddress } | { ok: false; why: string; tokenGiven: boolean };

/**
 * The token (`BUILDKITE_API_TOKEN`, else `PROOFGATE_BUILDKITE_TOKEN`), the API's base URL
 * (`PROOFGATE_BUILDKITE_API_URL`: https, or http to a loopback address for tests; default
 * api.buildkite.com) and the build (`BUILDKITE_ORGANIZATION_SLUG`, `BUILDKITE_PIPELINE_SLUG`,
 * `BUILDKITE_BUILD_NUMBER`). A base URL that would send the token in clear text elsewhere is refused.
 */
export function restSettings(env: Env): RestSettings {
  const token = (env.BUILDKITE_API_TOKEN ?? "").trim() || (env.PROOFGATE_BUILDKITE_TOKEN ?? "").trim();
  if (token === "")
    return { ok: false, why: "no BUILDKITE_API_TOKEN (or PROOFGATE_BUILDKITE_TOKEN) is set", tokenGiven: false };
  const apiUrl = (env.PROOFGATE_BUILDKITE_API_URL ?? "").trim() || DEFAULT_API_URL;
  let parsed: URL;
  try {
    parsed = new URL(apiUrl);
  } catch {
    return { ok: false, why: `PROOFGATE_BUILDKITE_API_URL ${JSON.stringify(apiUrl)} is not a URL`, tokenGiven: true };
  }
  const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(parsed.hostname);
  if (parsed.protocol !== "https:" && !(parsed.protocol === "http:" && loopback)) {
    return {
      ok: false,
      why: `PROOFGATE_BUILDKITE_API_URL ${JSON.stringify(apiUrl)} is not https (plain http only to 127.0.0.1): the token is not sent there`,
      tokenGiven: true,
    };
  }
  const organization = (env.BUILDKITE_ORGANIZATION_SLUG ?? "").trim();
  const pipeline = (env.BUILDKITE_PIPELINE_SLUG ?? "").trim();
  const number = (env.BUILDKITE_BUILD_NUMBER ?? "").trim();
  const missing = [
    !organization && "BUILDKITE_ORGANIZATION_SLUG",
    !pipeline && "BUILDKITE_PIPELINE_SLUG",
    !/^[0-9]+$/.test(number) && "BUILDKITE_BUILD_NUMBER",
  ].filter(Boolean);
  if (missing.length > 0)
    return {
      ok: false,
      why: `${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} not set (or not valid), so the build to annotate is unknown`,
      tokenGiven: true,
    };
  return { ok: true, token, apiUrl: apiUrl.replace(/\/+$/, ""), build: { organization, pipeline, number } };
}

/** The annotations URL of a build. */
export function annotationsUrl(apiUrl: string, build: BuildAddress): string {
  const seg = encodeURIComponent;
  return `${apiUrl}/v2/organizations/${seg(build.organization)}/pipelines/${seg(build.pipeline)}/builds/${seg(build.number)}/annotations`;
}

/**
 * Creates (or, for the same context, replaces) the build's annotation. Resolves to the URL on
 * 201 Created; rejects with the status and the start of the response body otherwise.
 */
export async function createAnnotation(
  settings: Extract<RestSettings, { ok: true }>,
  annotation: AnnotationRequest,
  fetchImpl: typeof fetch = fetch,
  deadline?: AbortSignal,
): Promise<string> {
  const url = annotationsUrl(settings.apiUrl, settings.build);
  const response = await fetchImpl(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${settings.token}`,
      "content-type": "application/json",
      accept: "application/json",
    },
    body: JSON.stringify({ body: annotation.body, style: annotation.style, context: annotation.context }),
    signal: deadline ? AbortSignal.any([deadline, AbortSignal.timeout(60_000)]) : AbortSignal.timeout(60_000),
  });
  if (response.status !== 201) {
    const text = (await response.text().catch(() => "")).replace(/\s+/g, " ").trim().slice(0, 200);
    const hint =
      response.status === 401 || response.status === 403
        ? " (the token needs the write_builds scope and access to this pipeline)"
        : "";
    throw new Error(`POST ${url} returned ${response.status}${hint}${text ? `: ${text}` : ""}`);
  }
  return url;
}
