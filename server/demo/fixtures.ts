/**
 * The built-in demo model's script: fixtures (fixture.ts) that exercise every feature of the
 * `default` agent, and of the feature demo agents (scripts/), without a network or an API key.
 *
 * The first fixture whose predicate passes answers (the demo model, or aimock in the tests), and
 * the triggers read the last *user* message even when the request ends with a tool result. So the follow-ups to
 * tool results come first, keyed on the tool whose result is last; then the user triggers, most
 * specific first (DEMO_TRIGGER_ORDER); then one catch-all. Answers are functions of the request
 * only, so the same conversation always gets the same reply, tool call ids included.
 */
import type { DemoChatRequest, DemoFixture } from "./fixture.ts";
import { z } from "zod";
import { demoAgentFixtures } from "./scripts/index.ts";
import { answeredCalls, captured, lastResultIs, lastRole, lastUserImages, lastUserText, offers, parseObject, toolCall, type AnsweredCall } from "./request.ts";
import { argsFor } from "./schema-args.ts";
import { ownToolFixtures } from "./own-tools.ts";
import { toolFailureFixtures } from "./tool-failures.ts";

/** The default agent's backend tools, and the frontend tools the demo script knows. */
export const DEMO_TOOLS = {
  getWeather: "get_weather",
  updateTasks: "update_tasks",
  runPlan: "run_plan",
  /** Frontend: the client changes its page background. */
  changeBackground: "change_background",
  /** Frontend, human in the loop: the client asks the user and answers `{ approved }`. */
  confirmAction: "confirm_action",
} as const;

/** The tools the demo's own script calls by its triggers: never called as an application's own tool. */
const OWN_SCRIPT_TOOLS: ReadonlySet<string> = new Set(Object.values(DEMO_TOOLS));

/** Case-insensitive substrings of the last user message, tried in DEMO_TRIGGER_ORDER. */
export const DEMO_TRIGGERS = {
  parallel: ["parallel"],
  approval: ["approve", "delete"],
  background: ["background"],
  weather: ["weather"],
  tasks: ["task"],
  plan: ["plan"],
  reasoning: ["think", "reason"],
} as const;
export type DemoTrigger = keyof typeof DEMO_TRIGGERS;
export const DEMO_TRIGGER_ORDER: readonly DemoTrigger[] = [
  "parallel", "approval", "background", "weather", "tasks", "plan", "reasoning",
];

/** One prompt per trigger, for UI suggestions and tests. */
export const DEMO_PROMPTS: Record<DemoTrigger, string> = {
  parallel: "Check the weather in Paris and Tokyo in parallel",
  approval: "Delete the old drafts",
  background: "Change the background to blue",
  weather: "What's the weather in Paris?",
  tasks: "Add a task: water the plants",
  plan: "Make a plan to launch the website",
  reasoning: "Think it through: is a hot dog a sandwich?",
};

/**
 * Not a trigger word but a whole phrase: the demo model then fails like an overloaded provider
 * (HTTP 503), so the error path (RUN_ERROR, FAILED, the error banner) can be seen and tested.
 */
export const DEMO_FAILURE_PROMPT = "Simulate an upstream failure";

// ---- tool contracts (the default agent implements the backend ones with these schemas) ----

export const GetWeatherArgsSchema = z.object({ location: z.string().describe("City name, e.g. Paris") });
/** What get_weather returns; the weather card and the follow-up answer read it. */
export interface WeatherResult {
  location: string;
  temperature: number; // °C
  feelsLike?: number;
  conditions: string;
  humidity?: number; // %
  windSpeed?: number; // km/h
}

/** update_tasks replaces the whole list: replaying it is harmless, and the tool diffs it into a JSON patch. */
export const DemoTaskSchema = z.object({ id: z.string(), title: z.string(), done: z.boolean() });
export const UpdateTasksArgsSchema = z.object({
  tasks: z.array(DemoTaskSchema).describe("The complete new task list (state.tasks)"),
});
export type DemoTask = z.infer<typeof DemoTaskSchema>;

export const RunPlanArgsSchema = z.object({ goal: z.string(), steps: z.array(z.string()).min(1) });
export const ChangeBackgroundArgsSchema = z.object({ background: z.string().describe("Any CSS background value") });
export const ConfirmActionArgsSchema = z.object({ action: z.string().describe("What needs the user's approval") });

function says(req: DemoChatRequest, trigger: DemoTrigger): boolean {
  const message = lastUserText(req).toLowerCase();
  return DEMO_TRIGGERS[trigger].some((w) => message.includes(w));
}

// ---- answers ----------------------------------------------------------------------------

const DEFAULT_TASKS: DemoTask[] = [
  { id: "task-1", title: "Try the Threadline demo", done: true },
  { id: "task-2", title: "Set OPENAI_API_KEY to talk to a real model", done: false },
];

const PLAN_STEPS = ["Understand the goal", "Break it into steps", "Do the work", "Check the result"];

const COLORS = /\b(red|orange|yellow|green|blue|purple|pink|black|white|gr[ae]y|teal|navy|#[0-9a-f]{3,8})\b/i;

/**
 * Markdown, as a real model's answers are: a list, inline code and a code block, so the offline
 * demo shows the app's renderer (and a client that shows raw text still reads well).
 */
const OFFLINE_ANSWER = [
  "Hi! I'm Threadline's built-in **demo model**: I run offline and answer from a fixed script, so there is no real AI behind this reply. Try:",
  "",
  ...(["weather", "tasks", "plan", "reasoning", "background", "approval", "parallel"] as const).map((t) => `- ${DEMO_PROMPTS[t]}`),
  "",
  "To talk to a real model, set `OPENAI_API_KEY` (plus `OPENAI_BASE_URL` for any OpenAI-compatible provider), or " +
    "`MODEL=anthropic:<model>` with `ANTHROPIC_API_KEY` (the README lists every provider), and restart the server:",
  "",
  "```sh",
  "OPENAI_API_KEY=sk-... npm start",
  "```",
].join("\n");

function weatherLine(call: AnsweredCall): string {
  const r = parseObject(call.result) as Partial<WeatherResult>;
  // The application's get_weather may name the place otherwise ({ city }): its first string argument.
  const place = r.location ?? String(call.args.location ?? Object.values(call.args).find((v) => typeof v === "string") ?? "there");
  if (typeof r.temperature !== "number") return `The weather service said about ${place}: ${call.result}`;
  const feels = typeof r.feelsLike === "number" ? ` (feels like ${r.feelsLike}°C)` : "";
  const extra = [
    typeof r.humidity === "number" ? `humidity ${r.humidity}%` : "",
    typeof r.windSpeed === "number" ? `wind ${r.windSpeed} km/h` : "",
  ].filter(Boolean);
  const conditions = r.conditions ? `, ${r.conditions.toLowerCase()}` : "";
  return `In ${place} it is ${r.temperature}°C${feels}${conditions}${extra.length ? `, ${extra.join(", ")}` : ""}.`;
}

/** Two places or more: a table, one row each (a row the service could not fill says what it said). */
function weatherTable(calls: AnsweredCall[]): string {
  const rows = calls.map((call) => {
    const r = parseObject(call.result) as Partial<WeatherResult>;
    const place = r.location ?? String(call.args.location ?? "?");
    if (typeof r.temperature !== "number") return `| ${place} | ? | ${call.result.replaceAll("|", "/")} |`;
    return `| ${place} | ${r.temperature}°C | ${r.conditions ?? ""} |`;
  });
  return ["Here is the weather in each place:", "", "| Place | Temperature | Conditions |", "| --- | --- | --- |", ...rows].join("\n");
}

function approved(result: string): boolean {
  const parsed = parseObject(result);
  if (typeof parsed.approved === "boolean") return parsed.approved;
  return /^\W*(yes|approved?|confirm(ed)?|ok)\W*$/i.test(result);
}

/** The demo's answer to a message with images: that they arrived, and that it cannot see them. */
export function imagesSeen(count: number, text: string): string {
  const images = count === 1 ? "1 image" : `${count} images`;
  const words = text.trim() ? ` with your words "${text.trim()}"` : "";
  return `I see ${images} in your message${words}. I am the built-in **demo model**, so I cannot look at what ${count === 1 ? "it shows" : "they show"}; with a real model (set \`MODEL\` and its API key) the agent would describe ${count === 1 ? "it" : "them"}.`;
}

export function demoFixtures(): DemoFixture[] {
  return [
    {
      match: { predicate: (req) => lastUserText(req).toLowerCase().includes(DEMO_FAILURE_PROMPT.toLowerCase()) },
      response: { error: { message: "Simulated upstream failure (the demo model's failure phrase)", type: "server_error" }, status: 503 },
    },

    // Images in the message: said honestly, since the demo cannot look at them.
    {
      match: { predicate: (req) => lastUserImages(req) > 0 },
      response: (req) => ({ content: imagesSeen(lastUserImages(req), lastUserText(req)) }),
    },

    // A tool that failed is said so, whichever agent called it (tool-failures.ts).
    ...toolFailureFixtures(),

    // The feature demo agents (server/agents/demos): each is recognised by a tool only it is
    // offered, so their scripts go before the default agent's word triggers.
    ...demoAgentFixtures(),

    // Follow-ups: the request ends with a tool result.
    {
      match: { predicate: lastResultIs(DEMO_TOOLS.getWeather) },
      response: (req) => {
        const calls = answeredCalls(req).filter((c) => c.name === DEMO_TOOLS.getWeather);
        return { content: calls.length > 1 ? weatherTable(calls) : calls.map(weatherLine).join(" ") };
      },
    },
    {
      match: { predicate: lastResultIs(DEMO_TOOLS.updateTasks) },
      response: (req) => {
        const tasks = (answeredCalls(req).at(-1)?.args.tasks ?? []) as DemoTask[];
        const done = tasks.filter((t) => t.done).length;
        return { content: `Your task list is updated: ${tasks.length} tasks, ${done} done.` };
      },
    },
    {
      match: { predicate: lastResultIs(DEMO_TOOLS.runPlan) },
      response: (req) => {
        const { goal, steps } = answeredCalls(req).at(-1)!.args as { goal?: string; steps?: string[] };
        const list = (steps ?? []).map((step, i) => `${i + 1}. ${step}`).join("\n");
        return { content: `All ${steps?.length ?? 0} steps of the plan to ${goal ?? "reach the goal"} are done:${list ? `\n\n${list}` : ""}` };
      },
    },
    {
      match: { predicate: lastResultIs(DEMO_TOOLS.confirmAction) },
      response: (req) => {
        const call = answeredCalls(req).at(-1)!;
        const action = String(call.args.action ?? "that");
        return approved(call.result)
          ? { content: `Approved, so I went ahead: "${action}" is done. (This is the demo model: nothing was really touched.)` }
          : { content: `Cancelled: I did not do "${action}".` };
      },
    },
    // The result of the application's own tool, called for a message that named it (own-tools.ts).
    ownToolFixtures(OWN_SCRIPT_TOOLS)[0]!,
    {
      match: { predicate: (req) => lastRole(req) === "tool" },
      response: { content: "Done! I've completed that for you." },
    },

    // User triggers, most specific first.
    {
      match: { predicate: (req) => says(req, "parallel") && offers(req, DEMO_TOOLS.getWeather) },
      response: (req) => ({
        toolCalls: [
          toolCall(req, 0, DEMO_TOOLS.getWeather, argsFor(req, DEMO_TOOLS.getWeather, { location: "Paris" }, "Paris")),
          toolCall(req, 1, DEMO_TOOLS.getWeather, argsFor(req, DEMO_TOOLS.getWeather, { location: "Tokyo" }, "Tokyo")),
        ],
      }),
    },
    {
      match: { predicate: (req) => says(req, "approval") && offers(req, DEMO_TOOLS.confirmAction) },
      response: (req) => {
        const message = lastUserText(req);
        return { toolCalls: [toolCall(req, 0, DEMO_TOOLS.confirmAction, argsFor(req, DEMO_TOOLS.confirmAction, { action: message.replace(/[.!?]+$/, "") }, message))] };
      },
    },
    {
      match: { predicate: (req) => says(req, "background") && offers(req, DEMO_TOOLS.changeBackground) },
      response: (req) => {
        const color = captured(lastUserText(req), COLORS, "linear-gradient(135deg, #667eea, #764ba2)");
        return { toolCalls: [toolCall(req, 0, DEMO_TOOLS.changeBackground, argsFor(req, DEMO_TOOLS.changeBackground, { background: color.toLowerCase() }, color.toLowerCase()))] };
      },
    },
    {
      // Frontend tools exist only if the client sends them (RunAgentInput.tools).
      match: { predicate: (req) => says(req, "approval") || says(req, "background") },
      response: (req) => {
        const tool = says(req, "approval") ? DEMO_TOOLS.confirmAction : DEMO_TOOLS.changeBackground;
        return {
          content:
            `I would use the \`${tool}\` tool for that, but this client did not offer it. Frontend tools come from ` +
            "the client: use the Threadline web app, or register the tool in your own (for example with CopilotKit).",
        };
      },
    },
    {
      match: { predicate: (req) => says(req, "weather") && offers(req, DEMO_TOOLS.getWeather) },
      response: (req) => {
        const location = captured(lastUserText(req), /\b(?:in|for|at)\s+([\p{L}][\p{L} .'-]*?)\s*(?:[?!.,;]|$)/iu, "San Francisco");
        return { toolCalls: [toolCall(req, 0, DEMO_TOOLS.getWeather, argsFor(req, DEMO_TOOLS.getWeather, { location }, location))] };
      },
    },
    {
      match: { predicate: (req) => says(req, "tasks") && offers(req, DEMO_TOOLS.updateTasks) },
      response: (req) => {
        const title = captured(lastUserText(req), /(?:add (?:a )?task(?: to)?|task:)\s*:?\s*(.+?)[.!?]*$/i, "");
        const tasks = title ? [...DEFAULT_TASKS, { id: "task-3", title, done: false }] : DEFAULT_TASKS;
        return { toolCalls: [toolCall(req, 0, DEMO_TOOLS.updateTasks, argsFor(req, DEMO_TOOLS.updateTasks, { tasks }, title))] };
      },
    },
    {
      match: { predicate: (req) => says(req, "plan") && offers(req, DEMO_TOOLS.runPlan) },
      response: (req) => {
        const goal = captured(lastUserText(req), /\bplan (?:to|for)\s+(.+?)[.!?]*$/i, "get started with Threadline");
        return {
          content: `Here is my plan to ${goal}. I'll work through it step by step.`,
          toolCalls: [toolCall(req, 0, DEMO_TOOLS.runPlan, argsFor(req, DEMO_TOOLS.runPlan, { goal, steps: PLAN_STEPS }, goal))],
        };
      },
    },
    {
      match: { predicate: (req) => says(req, "reasoning") },
      response: {
        reasoning:
          "The user wants me to reason before answering. I should weigh both sides, keep it short, " +
          "and say plainly that this is a scripted demo answer.",
        content: "I thought it over: both sides have a point, and I'd pick the simplest answer. (Scripted demo reasoning.)",
      },
    },

    // A message that names one of the application's own tools: that tool (own-tools.ts).
    ownToolFixtures(OWN_SCRIPT_TOOLS)[1]!,

    // Anything else.
    { match: {}, response: { content: OFFLINE_ANSWER } },
  ];
}
