/**
 * Raw HTTP for hostile requests: node:http sends the path, headers and body exactly as given
 * (fetch would normalise the URL and refuse some headers). An event stream is not read to its
 * end: its status and headers are all a test of the edge needs.
 */
import { request } from "node:http";

export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface RawResponse {
  status: number;
  contentType: string;
  text: string;
  json?: { error?: { code?: string; message?: string; issues?: { path: string; limit?: string; message: string }[] } } & Record<string, unknown>;
}

export function send(baseUrl: string, req: RawRequest): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    // A fresh connection each time: a refused request may leave its socket closed, and a reused one
    // would turn that into a reset of the next, unrelated request.
    const r = request({ host: hostname, port: Number(port), method: req.method, path: req.path, headers: req.headers, agent: false }, (res) => {
      const contentType = String(res.headers["content-type"] ?? "");
      const status = res.statusCode ?? 0;
      if (contentType.includes("event-stream") || contentType.includes("ag-ui")) {
        res.destroy();
        return resolve({ status, contentType, text: "" });
      }
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: RawResponse["json"];
        try {
          json = contentType.includes("json") ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status, contentType, text, json });
      });
      res.on("error", reject);
    });
    r.on("error", reject);
    r.end(req.body);
  });
}
