/**
 * The @ai-sdk/* provider packages, loaded on first use with a dynamic import(): they are optional
 * peer dependencies, so a server that never names Anthropic does not need its package installed,
 * and one that does gets an error naming the command to run. Rejected: static imports, which
 * would make every provider package a hard dependency of every install.
 */
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { isMissingModule, missingPackageError } from "../missing-package.ts";

export interface AiSdkProviderSettings {
  apiKey: string;
  baseURL?: string;
}

type Loader = (settings: AiSdkProviderSettings, name: string) => Promise<LanguageModelV3>;

/** `pkg@range` is the peer range in package.json, the line these loaders are tested against. */
const LOADERS: Record<"anthropic" | "google", { pkg: string; range: string; load: Loader }> = {
  anthropic: {
    pkg: "@ai-sdk/anthropic",
    range: "3",
    load: async (settings, name) => {
      const { createAnthropic } = await import("@ai-sdk/anthropic");
      return createAnthropic(settings)(name);
    },
  },
  google: {
    pkg: "@ai-sdk/google",
    range: "3",
    load: async (settings, name) => {
      const { createGoogleGenerativeAI } = await import("@ai-sdk/google");
      return createGoogleGenerativeAI(settings)(name);
    },
  },
};

export type AiSdkProviderName = keyof typeof LOADERS;

export async function loadAiSdkModel(provider: AiSdkProviderName, settings: AiSdkProviderSettings, name: string): Promise<LanguageModelV3> {
  const { pkg, range, load } = LOADERS[provider];
  try {
    return await load(settings, name);
  } catch (err) {
    if (isMissingModule(err, pkg)) throw missingPackageError(`The ${provider} provider`, pkg, range, err);
    throw err;
  }
}
