/**
 * One reasoning block of an AI SDK model, kept as provider data so it can be sent back exactly:
 * its text and the provider metadata that came with it (an Anthropic thinking block's
 * `signature`, a redacted block's `redactedData`). A signature signs its own block's text, so
 * block and text travel together; rejected: keeping only the metadata, which would pair a
 * signature with the concatenated text of several blocks and be refused.
 */
import { z } from "zod";

/** The key that marks an entry as this adapter's; other adapters skip such entries. */
export const AI_SDK_REASONING = "aiSdkReasoning";

export const AiSdkReasoningSchema = z.object({
  [AI_SDK_REASONING]: z.object({
    /** LanguageModelV3.provider ("anthropic.messages"): only a model of the same provider reads it back. */
    provider: z.string(),
    text: z.string(),
    providerOptions: z.record(z.string(), z.record(z.string(), z.unknown())),
  }),
});
export type AiSdkReasoning = z.infer<typeof AiSdkReasoningSchema>[typeof AI_SDK_REASONING];

export function reasoningEntry(r: AiSdkReasoning): Record<string, unknown> {
  return { [AI_SDK_REASONING]: r };
}

/** The blocks of `provider` among a reasoning part's provider data, in order. */
export function reasoningBlocks(providerData: readonly unknown[] | undefined, provider: string): AiSdkReasoning[] {
  const out: AiSdkReasoning[] = [];
  for (const entry of providerData ?? []) {
    const parsed = AiSdkReasoningSchema.safeParse(entry);
    if (parsed.success && parsed.data[AI_SDK_REASONING].provider === provider) out.push(parsed.data[AI_SDK_REASONING]);
  }
  return out;
}
