/**
 * Every request's id, its log line and its HTTP metrics, as the first middleware of each door
 * (the standalone app, router(), copilotkit()): whichever of them a request reaches first does
 * it, the others find it done, so an application that mounts only router() gets the same.
 *
 * - The id: the client's `X-Request-Id` when it is a request id (protocol/request-id.ts), else a
 *   fresh UUID; sent back in `X-Request-Id`, carried by the request's logger (requestLogger), and
 *   kept by the run the request posts (its log lines and RUN_ERROR name it). A valid W3C
 *   `traceparent` adds its `trace_id` to the request's logger (protocol/trace-context.ts), as
 *   the run's logger has it.
 * - One log line when the response ends ("request"): method, route pattern, path without query
 *   (a query may carry a key: `/?apiKey=`), status, duration, request id, tenant, thread and run.
 *   Probes (/healthz, /readyz, /metrics) log at debug: a load balancer asks every few seconds.
 *   Rejected: pino-http, a dependency for one line, whose default line carries every header.
 * - threadline_http_requests_total and threadline_http_request_duration_seconds by route pattern
 *   (`<mount><route>`, or `<mount>/*` when no route matched), never the path: ids in a path
 *   would make a series per thread.
 */
import { randomUUID } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import type { Logger } from "pino";
import { isRequestId } from "../../protocol/request-id.ts";
import { parseTraceContext, traceIdOf } from "../../protocol/trace-context.ts";
import type { Metrics } from "../metrics.ts";
import { boundedLabel, OTHER } from "../metrics/labels.ts";
import { tenantIfKnown } from "./auth.ts";

export const REQUEST_ID_HEADER = "X-Request-Id";

const CONTEXT_LOCAL = "threadlineRequest";

interface RequestContext {
  requestId: string;
  log: Logger;
}

/** Ids a log line quotes at most this long: a refused body's threadId may be a megabyte. */
const ID_IN_LOG_MAX = 200;

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const PROBES = new Set(["/healthz", "/readyz", "/metrics"]);

export function requestContext({ logger, metrics }: { logger: Logger; metrics?: Metrics }): RequestHandler {
  const routeLabel = boundedLabel(200);
  return (req, res, next) => {
    if (res.locals[CONTEXT_LOCAL] !== undefined) return next(); // an outer door did it
    const incoming = req.get(REQUEST_ID_HEADER);
    const requestId = isRequestId(incoming) ? incoming : randomUUID();
    const trace = parseTraceContext(req.get("traceparent"), undefined);
    const log = logger.child({ requestId, ...(trace && { trace_id: traceIdOf(trace) }) });
    res.locals[CONTEXT_LOCAL] = { requestId, log } satisfies RequestContext;
    res.setHeader(REQUEST_ID_HEADER, requestId);
    const started = performance.now();
    res.once("close", () => {
      const durationMs = performance.now() - started;
      const route = routeOf(req);
      const method = METHODS.has(req.method) ? req.method : OTHER;
      const status = res.statusCode;
      metrics?.httpRequests.inc({ method, route: routeLabel(route), status: String(status) });
      metrics?.httpDuration.observe({ method, route: routeLabel(route) }, durationMs / 1000);
      const fields = {
        method: req.method,
        route,
        path: req.originalUrl.split("?", 1)[0],
        status,
        durationMs: Math.round(durationMs),
        ...present("tenantId", tenantIfKnown(res)),
        ...present("threadId", idOf(req.params?.threadId) ?? idOf(bodyField(req, "threadId"))),
        ...present("runId", idOf(bodyField(req, "runId"))),
        // The client left before the response ended (a stream it stopped reading, a refresh).
        ...(!res.writableFinished && { aborted: true }),
      };
      if (status >= 500) log.warn(fields, "request");
      else if (PROBES.has(route)) log.debug(fields, "request");
      else log.info(fields, "request");
    });
    next();
  };
}

/** The request's id (requestContext), or undefined on a request that did not pass it. */
export function requestIdOf(res: Response): string | undefined {
  return (res.locals[CONTEXT_LOCAL] as RequestContext | undefined)?.requestId;
}

/** The request's logger, naming its id; `fallback` on a request that did not pass requestContext. */
export function requestLogger(res: Response, fallback: Logger): Logger {
  return (res.locals[CONTEXT_LOCAL] as RequestContext | undefined)?.log ?? fallback;
}

/**
 * The route pattern the request matched, under the path it was mounted at (`/api/threads/:threadId`);
 * `<mount>/*` when no route matched (a refusal at the edge, an unknown path, the client app).
 * Read when the response ends: Express leaves `req.route` and `req.baseUrl` as the matched route
 * set them, since a route that answers calls no next().
 */
function routeOf(req: Request): string {
  const route = (req as Request & { route?: { path?: unknown } }).route;
  if (route && typeof route.path === "string") return `${req.baseUrl}${route.path}`;
  return `${req.baseUrl}/*`;
}

function bodyField(req: Request, name: string): unknown {
  const body: unknown = req.body;
  return typeof body === "object" && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

function idOf(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value.slice(0, ID_IN_LOG_MAX) : undefined;
}

function present<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]: string });
}
