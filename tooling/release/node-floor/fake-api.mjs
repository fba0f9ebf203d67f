// A minimal GitHub and GitLab API on 127.0.0.1 for node-floor.sh: answers the writes `proofgate check`
// publishes (check run, PR comment; commit status, MR note) and logs each request to stderr. It stops
// itself after a minute. (The tests use the full fakes in packages/*/src/__fixtures__.)
import { createServer } from "node:http";

const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    process.stderr.write(`${req.method} ${req.url}\n`);
    const json = (status, body) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const url = req.url ?? "";
    if (req.method === "POST" && url.endsWith("/check-runs"))
      return json(201, { id: 1, url: "u", html_url: "https://x/runs/1" });
    if (url.includes("/issues/") && url.includes("/comments"))
      return req.method === "GET" ? json(200, []) : json(201, { id: 2, html_url: "https://x/c/2" });
    if (url.includes("/statuses/")) return json(201, { id: 1, status: "success" });
    if (url.endsWith("/user")) return json(200, { id: 5 });
    if (url.includes("/notes")) return req.method === "GET" ? json(200, []) : json(201, { id: 9 });
    return json(404, { message: "not served" });
  });
});
server.listen(Number(process.argv[2]), "127.0.0.1");
setTimeout(() => server.close(), 60_000).unref();
