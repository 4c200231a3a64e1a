/**
 * CopilotKit's runtime reports usage to CopilotKit (Segment) unless told not to, and reads the
 * switch once, when its telemetry module is first imported. This module must therefore be
 * imported before `@copilotkit/runtime`: it turns telemetry off unless the user set
 * COPILOTKIT_TELEMETRY_DISABLED themselves (to "false", to opt in).
 */
if (process.env.COPILOTKIT_TELEMETRY_DISABLED === undefined || process.env.COPILOTKIT_TELEMETRY_DISABLED === "") {
  process.env.COPILOTKIT_TELEMETRY_DISABLED = "true";
}

export const copilotkitTelemetryDisabled = (): boolean =>
  process.env.COPILOTKIT_TELEMETRY_DISABLED === "true" || process.env.COPILOTKIT_TELEMETRY_DISABLED === "1";
