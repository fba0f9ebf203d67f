// The gitlab platform for proofgate check: implements the platform contract of @proofgate/core
// (detect, context, publish). Built in its own issue; see the package description.
export {};
