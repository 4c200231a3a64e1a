/**
 * CopilotKit's reasoning label in English: it rounds the time to whole seconds and always writes
 * "seconds" ("Thought for 1 seconds"); this makes the one second singular and leaves the rest.
 */
export function singularSecond(label: string | undefined): string | undefined {
  return label?.replace(/\b1 seconds\b/, "1 second");
}
