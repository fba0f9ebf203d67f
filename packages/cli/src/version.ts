declare const __PROOFGATE_VERSION__: string | undefined;

/** The CLI's version, set by the bundler from package.json. */
export const VERSION: string = typeof __PROOFGATE_VERSION__ === "string" ? __PROOFGATE_VERSION__ : "0.0.0-dev";
