/**
 * The AG-UI dojo's e2e scenarios (apps/dojo/e2e in the ag-ui repository) for every dojo feature
 * the app claims, `interrupt` (CopilotKit's useInterrupt) on the `approvals` agent its page uses:
 * the dojo's prompts, replayed by aimock from fixtures in the reference agents' tool names and
 * argument shapes (dojo-fixtures.ts), against the real server and the shipped demo agents,
 * through @ag-ui/client 1.0.0 and 0.0.59, on both backends. Each test asserts what the dojo's
 * spec asserts, on the data the page would draw: the tool call by name and arguments, the state's
 * shape, the reply. Frontend tools are answered as the dojo's pages answer them: a next run whose
 * last message is the tool's result (and, for a rejected change, the state the page put back).
 */
import { randomUUID } from "node:crypto";
import type { Message, Tool } from "@ag-ui/core";
import { LLMock } from "@copilotkit/aimock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APPROVALS_AGENT_ID, approvalsAgent } from "../../server/agents/approvals-agent.ts";
import { demoAgents } from "../../server/agents/demos/index.ts";
import { MEETING_RESPONSE_JSON_SCHEMA, MEETING_SLOTS } from "../../server/demo/approvals-fixtures.ts";
import { CLIENT_VERSIONS, runClient, type ClientOutcome, type ClientVersion } from "../support/agui-clients.ts";
import { conversation as interruptConversation, finished, text, type Ev } from "../support/interrupt-conversation.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";
import {
  dojoFixtures,
  dragonStory,
  DOJO_PROMPTS as P,
  DOJO_TOOLS as T,
  GREETING_REPLY,
  HELLO_REPLY,
  MEETING_NOT_BOOKED_REPLY,
  TOOL_DONE_REPLY,
} from "./dojo-fixtures.ts";

let mock: LLMock;
let llmUrl: string;

beforeAll(async () => {
  // Small chunks: a tool's arguments stream in many deltas, as a real model sends them.
  mock = new LLMock({ port: 0, host: "127.0.0.1", latency: 0, chunkSize: 16, logLevel: "silent" });
  mock.addFixtures(dojoFixtures());
  llmUrl = `${(await mock.start()).replace(/\/$/, "")}/v1`;
});

afterAll(async () => {
  await mock?.stop();
});

/** A frontend tool as a page offers it (the schema does not matter to the server or the fixtures). */
const tool = (name: string): Tool => ({ name, description: name, parameters: { type: "object", properties: {} } });
const user = (content: string): Message => ({ id: randomUUID(), role: "user", content });

function lastText(outcome: ClientOutcome): string {
  const m = outcome.messages.findLast((x) => x.role === "assistant" && typeof x.content === "string" && x.content !== "");
  return (m?.content as string | undefined) ?? "";
}

function lastCall(outcome: ClientOutcome) {
  const m = outcome.messages.findLast((x) => x.role === "assistant" && (x.toolCalls?.length ?? 0) > 0);
  const call = m?.role === "assistant" ? m.toolCalls!.at(-1)! : undefined;
  return call && { id: call.id, name: call.function.name, args: JSON.parse(call.function.arguments) as Record<string, unknown> };
}

/** The tool calls of the outcome's last run, by name, in order. */
function callsOfRun(outcome: ClientOutcome): string[] {
  return outcome.events.flatMap((e) => (e.type === "TOOL_CALL_START" ? [String((e as { toolCallName?: unknown }).toolCallName)] : []));
}

describe.each(backends())("the dojo's scenarios on %s", (backend) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ backend, llmUrl, agents: [...demoAgents({ planStepDelayMs: 5 }), approvalsAgent()] });
  });

  afterAll(async () => {
    await server?.close();
  });

  describe.each(CLIENT_VERSIONS)("through @ag-ui/client %s", (version: ClientVersion) => {
    /** One conversation on one agent: each turn carries the messages and state so far, as a page does. */
    function conversation(agentId: string, tools: Tool[] = [], state?: unknown) {
      const threadId = randomUUID();
      let last: { messages: Message[]; state: unknown } = { messages: [], state };
      const send = async (messages: Message[], nextState = last.state): Promise<ClientOutcome> => {
        const outcome = await runClient(version, {
          url: `${server.url}/api/agents/${agentId}/run`,
          input: { threadId, messages, tools, ...(nextState !== undefined && { state: nextState }) },
        });
        expect(outcome.error?.message).toBeUndefined();
        expect(outcome.failed).toBe(false);
        expect(outcome.events.at(-1)?.type).toBe("RUN_FINISHED");
        last = { messages: outcome.messages as Message[], state: outcome.state };
        return outcome;
      };
      return {
        threadId,
        say: (text: string) => send([...last.messages, user(text)]),
        /** The page's answer to the last frontend call; `state` when the page changed it first. */
        answer: (result: unknown, state?: unknown) => {
          const call = lastCall({ messages: last.messages } as ClientOutcome)!;
          return send([...last.messages, { id: randomUUID(), role: "tool", toolCallId: call.id, content: JSON.stringify(result) }], state ?? last.state);
        },
      };
    }

    it("agentic_chat: sends and receives a message", async () => {
      const chat = conversation("agentic_chat", [tool(T.changeBackground)]);
      expect(lastText(await chat.say(P.greeting))).toBe(GREETING_REPLY);
    });

    it("agentic_chat: change_background to blue, then to pink, each answered (two assistant messages a turn)", async () => {
      const chat = conversation("agentic_chat", [tool(T.changeBackground)]);
      const backgrounds: unknown[] = [];
      for (const prompt of [P.blue, P.pink]) {
        const asked = await chat.say(prompt);
        expect(lastCall(asked)).toMatchObject({ name: T.changeBackground });
        backgrounds.push(lastCall(asked)!.args.background);
        const answered = await chat.answer({ ok: true });
        expect(lastText(answered)).toBe(TOOL_DONE_REPLY);
      }
      expect(backgrounds).toEqual(["blue", "pink"]);
    });

    it("agentic_chat: retains memory of the user's messages during a conversation", async () => {
      const chat = conversation("agentic_chat", [tool(T.changeBackground)]);
      expect(lastText(await chat.say(P.memory[0]))).toBe(HELLO_REPLY);
      for (const m of P.memory.slice(1)) await chat.say(m);
      expect(lastText(await chat.say(P.recall))).toBe("Your favorite fruit is Mango!");
    });

    it("backend_tool_rendering: get_weather runs on the server for San Francisco, then New York; its result has the card's data", async () => {
      const chat = conversation("backend_tool_rendering");
      for (const [prompt, city] of [[P.weatherSf, "San Francisco"], [P.weatherNy, "New York"]] as const) {
        const outcome = await chat.say(prompt);
        expect(lastCall(outcome)).toMatchObject({ name: T.getWeather, args: { location: city } });
        const result = outcome.events.find((e) => e.type === "TOOL_CALL_RESULT");
        expect(JSON.parse(String((result as { content?: unknown }).content))).toMatchObject({
          location: city,
          temperature: expect.any(Number),
          humidity: expect.any(Number),
          windSpeed: expect.any(Number),
          conditions: expect.any(String),
        });
        expect(lastText(outcome)).toContain(`In ${city} it is`);
      }
    });

    for (const [prompt, item] of [[P.hitlEggs, "eggs"], [P.hitlMars, "Start The Planning"]] as const) {
      it(`human_in_the_loop: generate_task_steps asks; the step the user unchecks ("${item}") is not in the plan the model is told`, async () => {
        const chat = conversation("human_in_the_loop", [tool(T.generateTaskSteps)]);
        await chat.say(P.hi);
        const asked = await chat.say(prompt);
        const call = lastCall(asked)!;
        expect(call.name).toBe(T.generateTaskSteps);
        const planned = call.args.steps as { description: string; status: string }[];
        expect(planned.every((s) => s.status === "enabled")).toBe(true);
        expect(planned.filter((s) => s.description.toLowerCase().includes(item.toLowerCase()))).toHaveLength(1);
        // The dojo's page: uncheck the item, "Perform Steps" answers with the steps still enabled.
        const kept = planned.filter((s) => !s.description.toLowerCase().includes(item.toLowerCase()));
        const performed = await chat.answer({ accepted: true, steps: kept });
        expect(lastText(performed)).toBe(`Performed: ${kept.map((s) => s.description).join("; ")}.`);
        expect(lastText(await chat.say(P.hitlAsk(item)))).toBe("No");
      });
    }

    for (const [prompt, count] of [[P.brownies, 4], [P.mars, 4]] as const) {
      it(`agentic_generative_ui: "${prompt}" plans with generate_task_steps_generative_ui; state.steps is the plan, every step completed`, async () => {
        const chat = conversation("agentic_generative_ui");
        expect(lastText(await chat.say(P.hi))).toBe(HELLO_REPLY);
        const outcome = await chat.say(prompt);
        expect(callsOfRun(outcome)).toEqual([T.generateTaskStepsGenerativeUi]);
        const planned = (lastCall(outcome)!.args.steps as { description: string }[]).map((s) => s.description);
        const state = outcome.state as { steps: { description: string; status: string }[] };
        expect(Object.keys(outcome.state as object)).toEqual(["steps"]);
        expect(state.steps.map((s) => s.description)).toEqual(planned);
        expect(state.steps).toHaveLength(count);
        expect(state.steps.every((s) => s.status === "completed")).toBe(true);
        // The progress is live: each step's running and completed arrive as deltas.
        expect(outcome.events.filter((e) => e.type === "STATE_DELTA").length).toBeGreaterThanOrEqual(2 * count);
        expect(lastText(outcome)).toBe(TOOL_DONE_REPLY);
      });
    }

    it("tool_based_generative_ui: two prompts, two generate_haiku calls whose arguments are the haiku the page displays", async () => {
      const chat = conversation("tool_based_generative_ui", [tool(T.generateHaiku)]);
      const seen: string[] = [];
      for (const prompt of [P.haikuWin, P.haikuMoon]) {
        const asked = await chat.say(prompt);
        const call = lastCall(asked)!;
        expect(call.name).toBe(T.generateHaiku);
        expect(call.args).toMatchObject({ image_name: expect.stringMatching(/\.jpg$/), gradient: expect.stringContaining("gradient") });
        expect(call.args.japanese).toHaveLength(3);
        expect(call.args.english).toHaveLength(3);
        seen.push((call.args.english as string[])[0]!);
        expect(lastText(await chat.answer("Haiku displayed"))).toBe(TOOL_DONE_REPLY);
      }
      expect(new Set(seen).size).toBe(2);
    });

    /** The dojo's shared-state page seeds this recipe before the first run. */
    const DOJO_RECIPE = {
      title: "Make Your Recipe",
      skill_level: "Intermediate",
      cooking_time: "45 min",
      special_preferences: [],
      ingredients: [
        { icon: "🥕", name: "Carrots", amount: "3 large, grated" },
        { icon: "🌾", name: "All-Purpose Flour", amount: "2 cups" },
      ],
      instructions: ["Preheat oven to 350°F (175°C)"],
    };

    it("shared_state: a pasta recipe by updateWorkingMemory lands in state.recipe with a Pasta ingredient and instructions", async () => {
      const chat = conversation("shared_state", [], { recipe: DOJO_RECIPE });
      const outcome = await chat.say(P.pasta);
      expect(lastCall(outcome)).toMatchObject({ name: T.updateWorkingMemory, args: { memory: { recipe: expect.any(Object) } } });
      const recipe = (outcome.state as { recipe: typeof DOJO_RECIPE }).recipe;
      expect(recipe.ingredients.map((i) => i.name)).toContain("Pasta");
      expect(recipe.instructions.length).toBeGreaterThan(0);
      // The fields the call did not give stay as the page had them.
      expect(recipe.title).toBe("Make Your Recipe");
      expect(recipe.special_preferences).toEqual([]);
      expect(outcome.events.some((e) => e.type === "STATE_DELTA")).toBe(true);
    });

    it("shared_state: an ingredient added in the page (Potatoes, 12) reaches the model, which lists it with the others", async () => {
      const edited = { recipe: { ...DOJO_RECIPE, ingredients: [...DOJO_RECIPE.ingredients, { icon: "🍴", name: "Potatoes", amount: "12" }] } };
      const chat = conversation("shared_state", [], edited);
      const reply = lastText(await chat.say(P.allIngredients));
      for (const expected of ["Potatoes", "12", "Carrots", "All-Purpose Flour"]) expect(reply).toContain(expected);
    });

    for (const choice of ["confirm", "reject"] as const) {
      it(`predictive_state_updates: write_document_local is predicted into state.document, confirm_changes asks; the user's ${choice} decides the document`, async () => {
        const chat = conversation("predictive_state_updates", [tool(T.confirmChanges)]);
        const first = await chat.say(P.dragon);
        expect(callsOfRun(first)).toEqual([T.writeDocumentLocal, T.confirmChanges]);
        // The prediction: state.document follows the streaming argument before the call ends.
        const end = first.events.findIndex((e) => e.type === "TOOL_CALL_END");
        expect(first.events.slice(0, end).some((e) => e.type === "STATE_DELTA")).toBe(true);
        expect((first.state as { document: string }).document).toBe(dragonStory("Atlantis"));
        expect(lastText(await chat.answer({ accepted: true }))).toContain("Confirmed");

        const second = await chat.say(P.lola);
        expect(callsOfRun(second)).toEqual([T.writeDocumentLocal, T.confirmChanges]);
        expect((second.state as { document: string }).document).toBe(dragonStory("Lola"));
        // The dojo's page: Reject puts the confirmed document back before it answers.
        const decided =
          choice === "confirm"
            ? await chat.answer({ accepted: true })
            : await chat.answer({ accepted: false }, { ...(second.state as object), document: dragonStory("Atlantis") });
        expect(lastText(decided)).toContain(choice === "confirm" ? "Confirmed" : "Rejected");
        const kept = choice === "confirm" ? "Lola" : "Atlantis";
        expect((decided.state as { document: string }).document).toBe(dragonStory(kept));
        const thread = (await (await fetch(`${server.url}/api/threads/${chat.threadId}`)).json()) as { state: { document: string } };
        expect(thread.state.document).toBe(dragonStory(kept));
      });
    }

    /** The call's tool messages in the thread's whole log, parsed: one per time the step finished. */
    async function toolResults(threadId: string, toolCallId: string): Promise<unknown[]> {
      const log = await server.store.read(threadId);
      return log.flatMap((e) => {
        if (e.type !== "message.appended") return [];
        const m = e.data.message as { role: string; toolCallId?: string; content?: unknown };
        return m.role === "tool" && m.toolCallId === toolCallId ? [JSON.parse(String(m.content))] : [];
      });
    }

    const TITLE = "Intro call with the sales team about pricing";
    const DOJO_TIME = "2026-01-01T10:00:00.000Z";
    const DOJO_LABEL = "Thu, Jan 1, 10:00 AM";
    /**
     * The answers: this app's page (client/src/demos/interrupt.tsx) picks with `{slot}` and cancels
     * with status `cancelled`; the dojo's page resolves with its picker's own payloads, a time it
     * generated (`{chosen_time, chosen_label}`) or `{cancelled: true}`, both in schedule_meeting's
     * responseSchema. What the step returns for each: one booking, or none.
     */
    const ANSWERS = {
      pick: {
        resume: { status: "resolved", payload: { slot: MEETING_SLOTS[0] } },
        reply: `Your intro call is booked for ${MEETING_SLOTS[0]}.`,
        result: { booked: true, title: TITLE, slot: MEETING_SLOTS[0] },
      },
      cancel: { resume: { status: "cancelled" }, reply: MEETING_NOT_BOOKED_REPLY, result: { error: expect.stringContaining("cancelled") } },
      "dojo's pick": {
        resume: { status: "resolved", payload: { chosen_time: DOJO_TIME, chosen_label: DOJO_LABEL } },
        reply: `Your intro call is booked for ${DOJO_LABEL}.`,
        result: { booked: true, title: TITLE, slot: DOJO_LABEL, at: DOJO_TIME },
      },
      "dojo's cancel": {
        resume: { status: "resolved", payload: { cancelled: true } },
        reply: MEETING_NOT_BOOKED_REPLY,
        result: { booked: false, title: TITLE, reason: expect.stringContaining("cancelled") },
      },
    } as const;

    for (const choice of Object.keys(ANSWERS) as (keyof typeof ANSWERS)[]) {
      it(`interrupt: the dojo's prompt makes schedule_meeting ask (RUN_FINISHED outcome interrupt); the ${choice} resumes under the asking run's id`, async () => {
        const threadId = randomUUID();
        const c = interruptConversation(version, `${server.url}/api/agents/${APPROVALS_AGENT_ID}/run`, threadId);
        const runId = `r-${randomUUID()}`;
        const asking = await c.run({ runId, add: [user(P.bookCall)] });
        // The dojo's spec: no assistant text before the question, and the question carries what the picker draws.
        expect(text(asking)).toBe("");
        const end = finished(asking)!;
        expect(end.outcome?.type).toBe("interrupt");
        expect(end.outcome!.interrupts).toHaveLength(1);
        const [asked] = end.outcome!.interrupts;
        const callId = asking.find((e: Ev) => e.type === "TOOL_CALL_START" && e.toolCallName === T.scheduleMeeting)?.toolCallId;
        expect(asked).toMatchObject({
          reason: "threadline:choose_slot",
          toolCallId: callId,
          message: expect.stringContaining("Intro call with the sales team"),
          responseSchema: MEETING_RESPONSE_JSON_SCHEMA,
          metadata: { kind: "input", toolName: T.scheduleMeeting, payload: { options: [...MEETING_SLOTS] } },
        });
        // The schema offers every answer of ANSWERS: this page's slot, the dojo page's time and its cancel.
        const shapes = (asked!.responseSchema as { anyOf: { required: string[] }[] }).anyOf.map((a) => a.required);
        expect(shapes).toEqual([["slot"], ["chosen_time"], ["cancelled"]]);
        expect(c.agent.pendingInterrupts?.map((i) => i.id)).toEqual([asked!.id]);

        const { resume, reply, result } = ANSWERS[choice];
        const answered = await c.run({ runId, resume: [{ interruptId: asked!.id, ...resume }] });
        expect(finished(answered)).toMatchObject({ runId });
        expect(finished(answered)!.outcome?.type ?? "success").toBe("success");
        expect(c.agent.pendingInterrupts ?? []).toEqual([]);
        // The dojo's spec after the answer: the question is gone and the agent follows up. The step
        // finished once: one booking (a pick), or one tool message saying nothing was booked.
        expect(text(answered)).toBe(reply);
        expect(await toolResults(threadId, String(callId))).toEqual([result]);
      });
    }
  });
});
