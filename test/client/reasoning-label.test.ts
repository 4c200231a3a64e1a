/** The reasoning message's label as the app shows it (client/src/components/reasoning-label.ts). */
import { expect, it } from "vitest";
import { singularSecond } from "../../client/src/components/reasoning-label.ts";

it("one second is singular; every other label CopilotKit writes is left as it is", () => {
  expect(singularSecond("Thought for 1 seconds")).toBe("Thought for 1 second");
  for (const label of ["Thinking…", "Thought for a few seconds", "Thought for 11 seconds", "Thought for 21 seconds", "Thought for 1 minute", "Thought for 1m 1s"]) {
    expect(singularSecond(label)).toBe(label);
  }
  expect(singularSecond(undefined)).toBeUndefined();
});
