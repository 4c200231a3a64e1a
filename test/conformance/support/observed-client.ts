/**
 * The real HttpAgent of either version, with hooks the shared runner (test/support/agui-clients.ts)
 * does not offer: a callback on every event as the client applies it (arrival order), and a fetch
 * of our own (to ask for protobuf, which HttpAgent never does by itself).
 */
import { HttpAgent as HttpAgent100 } from "@ag-ui/client";
import { HttpAgent as HttpAgent0059 } from "@ag-ui/client-0059";
import type { Message } from "@ag-ui/core";
import type { ClientVersion } from "../../support/agui-clients.ts";
import type { Ev } from "./expect.ts";

type FetchFn = (url: string, init: RequestInit) => Promise<Response>;

interface AgentLike {
  runAgent(params?: object, subscriber?: object): Promise<unknown>;
  messages: unknown[];
}
type AgentCtor = new (config: { url: string; threadId?: string; initialMessages?: unknown[]; fetch?: FetchFn }) => AgentLike;

const AGENTS: Record<ClientVersion, AgentCtor> = {
  "1.0.0": HttpAgent100 as unknown as AgentCtor,
  "0.0.59": HttpAgent0059 as unknown as AgentCtor,
};

export interface ObservedRun {
  events: Ev[];
  failed: boolean;
  error: Error | undefined;
  messages: Message[];
}

export async function runObserved(
  version: ClientVersion,
  opts: { url: string; threadId: string; messages: Message[]; onEvent?: (e: Ev) => void; fetch?: FetchFn },
): Promise<ObservedRun> {
  const agent = new AGENTS[version]({
    url: opts.url,
    threadId: opts.threadId,
    initialMessages: structuredClone(opts.messages),
    ...(opts.fetch && { fetch: opts.fetch }),
  });
  const run: ObservedRun = { events: [], failed: false, error: undefined, messages: [] };
  const fail = (err: unknown) => {
    if (run.failed) return;
    run.failed = true;
    run.error = err instanceof Error ? err : new Error(String(err));
  };
  try {
    await agent.runAgent(
      {},
      {
        onEvent: ({ event }: { event: Ev }) => {
          run.events.push(event);
          opts.onEvent?.(event);
        },
        onRunFailed: ({ error }: { error: unknown }) => fail(error),
      },
    );
  } catch (err) {
    fail(err);
  }
  run.messages = structuredClone(agent.messages) as Message[];
  return run;
}
