/** The calls of one tool in a conversation, with their results once they have one. */
import { z } from "zod";
import { parseJson } from "../components/ToolCards.tsx";

const MessageSchema = z.looseObject({
  role: z.string(),
  content: z.unknown().optional(),
  toolCallId: z.string().optional(),
  toolCalls: z.array(z.object({ id: z.string(), function: z.object({ name: z.string(), arguments: z.string() }) })).optional(),
});

export interface ToolCallOf<A> {
  id: string;
  /** Parsed arguments; partial (or empty) while they still stream. */
  args: Partial<A>;
  result?: unknown;
}

export function toolCallsOf<A>(messages: readonly unknown[], name: string): ToolCallOf<A>[] {
  const parsed = messages.flatMap((m) => {
    const r = MessageSchema.safeParse(m);
    return r.success ? [r.data] : [];
  });
  const results = new Map(parsed.filter((m) => m.role === "tool" && m.toolCallId).map((m) => [m.toolCallId!, m.content]));
  return parsed.flatMap((m) =>
    (m.toolCalls ?? [])
      .filter((c) => c.function.name === name)
      .map((c) => {
        const args = parseJson(c.function.arguments);
        const result = results.get(c.id);
        return {
          id: c.id,
          args: (typeof args === "object" && args !== null ? args : {}) as Partial<A>,
          ...(result !== undefined && { result: typeof result === "string" ? parseJson(result) : result }),
        };
      }),
  );
}
