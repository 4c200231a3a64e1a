/**
 * The services beside the conversations a person watches (issue 34): webhooks of run ends, memory
 * across threads, schedules. Built from the configuration with no I/O, as the rest of a
 * Threadline is (threadline.ts); start() runs the webhook worker and the scheduler, close() stops
 * the scheduler before the engine drains and both after.
 */
import type { Logger } from "pino";
import type { AgentRegistry } from "./agents/define.ts";
import type { Config } from "./config.ts";
import type { Engine } from "./engine/engine.ts";
import { wakeOnRunEnd } from "./engine/observer-hooks.ts";
import type { EngineObserver } from "./engine/observer.ts";
import { Memory } from "./memory/memory.ts";
import type { Metrics } from "./metrics.ts";
import { Scheduler } from "./schedules/scheduler.ts";
import { Schedules } from "./schedules/schedules.ts";
import type { EventStore } from "./store/types.ts";
import { webhookSettings, type WebhookSettings } from "./webhooks/settings.ts";
import { WebhookWorker } from "./webhooks/worker.ts";
import type { Workspaces } from "./workspace/workspaces.ts";

export interface BackgroundServices {
  webhooks: WebhookSettings;
  webhookWorker: WebhookWorker;
  memory: Memory;
  schedules: Schedules;
  scheduler: Scheduler;
}

interface Deps {
  config: Config;
  store: EventStore;
  agents: AgentRegistry;
  logger: Logger;
  metrics: Metrics;
}

/**
 * Two steps, since the engine sits between them: what the engine needs (memory, an observer that
 * wakes the webhook worker after each run end), then what needs the engine (the scheduler).
 */
export function backgroundServices(d: Deps) {
  const { config, store, agents, logger, metrics } = d;
  // A configured URL without a secret to sign it stops the start here (ConfigError).
  const webhooks = webhookSettings(config);
  store.webhooks.setTargets(webhooks.targets);
  const webhookWorker = new WebhookWorker({ store, settings: webhooks, logger, metrics });
  const memory = new Memory({ store: store.memory, limits: { maxEntries: config.MEMORY_MAX_ENTRIES, maxBytes: config.MEMORY_MAX_BYTES, maxValueBytes: config.MEMORY_MAX_VALUE_BYTES } });
  const schedules = new Schedules({ store, agents, minIntervalMs: config.SCHEDULE_MIN_INTERVAL_MS });
  return {
    memory,
    observe: (observer: EngineObserver) => wakeOnRunEnd(observer, () => webhookWorker.wake()),
    withEngine: (engine: Engine, workspaces: Workspaces | undefined): BackgroundServices => ({
      webhooks,
      webhookWorker,
      memory,
      schedules,
      scheduler: new Scheduler({ store, engine, agents, logger, metrics, workspaces, pollMs: config.SCHEDULE_POLL_MS }),
    }),
  };
}

/** Starts the worker and the scheduler; what stops them goes first into `closers`. */
export function startBackground(s: BackgroundServices, closers: (() => Promise<void>)[]): void {
  s.webhookWorker.start();
  closers.unshift(() => s.webhookWorker.close());
  s.scheduler.start();
  closers.unshift(() => s.scheduler.close());
}
