/**
 * One client conversation for interrupt tests: the same HttpAgent (@ag-ui/client 1.0.0 or
 * 0.0.59) for every run, as an app keeps it, so that the client's own pending-interrupt checks
 * are exercised. `run` throws what the client threw or reported (onRunFailed), console muted.
 */
import { HttpAgent as HttpAgent100 } from "@ag-ui/client";
import { HttpAgent as HttpAgent0059 } from "@ag-ui/client-0059";
import type { Message, ResumeEntry, Tool } from "@ag-ui/core";
import type { ClientVersion } from "./agui-clients.ts";

export interface Ev {
  type: string;
  [k: string]: unknown;
}

export interface WireInterrupt {
  id: string;
  toolCallId: string;
  reason: string;
  message?: string;
  expiresAt?: string;
  responseSchema?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

export interface AgentLike {
  runAgent(params?: object, subscriber?: object): Promise<unknown>;
  messages: Message[];
  state: unknown;
  pendingInterrupts?: WireInterrupt[];
}

export interface RunParams {
  tools?: Tool[];
  resume?: ResumeEntry[];
  add?: Message[];
  /** The run's id (default: the client generates one). */
  runId?: string;
}

export function conversation(version: ClientVersion, url: string, threadId: string) {
  const Ctor = (version === "1.0.0" ? HttpAgent100 : HttpAgent0059) as unknown as new (c: object) => AgentLike;
  const agent = new Ctor({ url, threadId });
  return {
    agent,
    async run(params: RunParams = {}): Promise<Ev[]> {
      if (params.add) agent.messages.push(...structuredClone(params.add));
      const events: Ev[] = [];
      let error: unknown;
      const { warn, error: err } = console;
      console.warn = () => {};
      console.error = () => {};
      try {
        await agent.runAgent(
          {
            ...(params.runId && { runId: params.runId }),
            ...(params.tools && { tools: params.tools }),
            ...(params.resume && { resume: params.resume }),
          },
          { onEvent: ({ event }: { event: Ev }) => void events.push(event), onRunFailed: ({ error: e }: { error: unknown }) => (error = e) },
        );
      } catch (e) {
        error ??= e;
      } finally {
        console.warn = warn;
        console.error = err;
      }
      if (error) throw error instanceof Error ? error : new Error(String(error));
      return events;
    },
  };
}

export const text = (events: Ev[]) => events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("");

export const finished = (events: Ev[]) =>
  events.find((e) => e.type === "RUN_FINISHED") as (Ev & { runId: string; outcome?: { type: string; interrupts: WireInterrupt[] } }) | undefined;
