// A GitLab API stand-in on 127.0.0.1 for the real @gitbeaker/rest client: it records every request
// and answers from a script, one handler per request in order.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the server saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage["headers"];
  /** The parsed JSON body, or the raw text when it is not JSON; undefined without a body. */
  body: unknown;
  contentType: string | undefined;
}

/** A scripted answer. */
export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Handler = (req: SeenRequest, base: string) => Answer;

/** A running stand-in: `apiUrl` is its CI_API_V4_URL. */
export interface GitlabServer {
  apiUrl: string;
  base: string;
  seen: SeenRequest[];
  /** Handlers left unused when the test ends (a test asserts it is 0). */
  pending: () => number;
  close: () => Promise<void>;
}

/** Starts the stand-in under `/gitlab` (a self-managed instance under a relative URL root). */
export async function startGitlabServer(script: Handler[]): Promise<GitlabServer> {
  const seen: SeenRequest[] = [];
  const queue = [...script];
  let base = "";
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", base);
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      if (text !== "") {
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
      }
      const request: SeenRequest = { method: req.method ?? "", path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body, contentType: req.headers["content-type"] };
      seen.push(request);
      const handler = queue.shift();
      const answer: Answer = handler ? handler(request, base) : { status: 599, body: { message: `unexpected ${request.method} ${request.path}` } };
      const payload = answer.body === undefined ? "" : JSON.stringify(answer.body);
      res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
      res.end(payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;
  return {
    apiUrl: `${base}/gitlab/api/v4`,
    base,
    seen,
    pending: () => queue.length,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}
