/**
 * The engine's clocks: the lease heartbeat of the runs executing here, and the recovery sweep
 * that claims expired leases. Both are unref'd: they never keep a process alive on their own.
 */
export interface EngineTimers {
  stop(): void;
}

export function startEngineTimers(opts: {
  leaseTtlMs: number;
  heartbeat: () => Promise<void>;
  sweep: () => Promise<void>;
}): EngineTimers {
  // Three beats per TTL: a lease survives two missed beats.
  const beat = Math.max(50, Math.floor(opts.leaseTtlMs / 3));
  const heartbeat = setInterval(() => void opts.heartbeat(), beat);
  heartbeat.unref();
  const sweep = setInterval(() => void opts.sweep(), Math.max(100, Math.floor(opts.leaseTtlMs / 2)));
  sweep.unref();
  return {
    stop() {
      clearInterval(heartbeat);
      clearInterval(sweep);
    },
  };
}
