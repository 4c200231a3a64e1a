/**
 * The whole demo script, in the order it is tried: the approvals agent's first (it answers only
 * requests that offer that agent's tools), then the rest. One owner, for the demo model and for
 * the tests that serve the same script from aimock.
 */
import { approvalsFixtures } from "./approvals-fixtures.ts";
import type { DemoFixture } from "./fixture.ts";
import { demoFixtures } from "./fixtures.ts";

export function demoScript(): DemoFixture[] {
  return [...approvalsFixtures(), ...demoFixtures()];
}
