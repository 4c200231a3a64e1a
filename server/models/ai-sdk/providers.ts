/**
 * The @ai-sdk/* provider packages, loaded on first use with a dynamic import(): they are optional
 * (devDependencies / optional peers), so a server that never names Anthropic does not need its
 * package installed, and one that does gets an error naming the command to run. Rejected: static
 * imports, which would make every provider package a hard dependency of every install.
 */
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { ModelError } from "../errors.ts";

export interface AiSdkProviderSettings {
  apiKey: string;
  baseURL?: string;
}

type Loader = (settings: AiSdkProviderSettings, name: string) => Promise<LanguageModelV3>;

const LOADERS: Record<"anthropic" | "google", { pkg: string; load: Loader }> = {
  anthropic: {
    pkg: "@ai-sdk/anthropic",
    load: async (settings, name) => {
      const { createAnthropic } = await import("@ai-sdk/anthropic");
      return createAnthropic(settings)(name);
    },
  },
  google: {
    pkg: "@ai-sdk/google",
    load: async (settings, name) => {
      // Not a declared dependency: typed loosely so the build does not need it either.
      const mod = (await import(/* @vite-ignore */ "@ai-sdk/google" as string)) as {
        createGoogleGenerativeAI(s: AiSdkProviderSettings): (name: string) => LanguageModelV3;
      };
      return mod.createGoogleGenerativeAI(settings)(name);
    },
  },
};

export type AiSdkProviderName = keyof typeof LOADERS;

export async function loadAiSdkModel(provider: AiSdkProviderName, settings: AiSdkProviderSettings, name: string): Promise<LanguageModelV3> {
  const { pkg, load } = LOADERS[provider];
  try {
    return await load(settings, name);
  } catch (err) {
    if (isMissingModule(err, pkg)) {
      throw new ModelError("MODEL_UNAVAILABLE", `The ${provider} provider needs the ${pkg} package, which is not installed: run \`npm install ${pkg}\` and start again.`, {
        cause: err,
        retryable: false,
      });
    }
    throw err;
  }
}

function isMissingModule(err: unknown, pkg: string): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return (e?.code === "ERR_MODULE_NOT_FOUND" || e?.code === "MODULE_NOT_FOUND") && typeof e.message === "string" && e.message.includes(pkg);
}
