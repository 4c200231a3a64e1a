/**
 * The built-in `default` agent: small, but it shows every feature the server has. Backend tools
 * (weather rendered as a card, shared-state task list edits, a multi-step plan whose progress
 * streams as state deltas, activity and terminal output) and whatever frontend tools the client
 * sends. With no OPENAI_API_KEY it talks to the demo model (server/demo), whose fixtures call
 * these tools by the same names and schemas.
 */
import fjp from "fast-json-patch";
import {
  DEMO_TOOLS,
  GetWeatherArgsSchema,
  RunPlanArgsSchema,
  UpdateTasksArgsSchema,
  type WeatherResult,
} from "../demo/fixtures.ts";
import { abortableWait } from "./abortable-wait.ts";
import { defineAgent, defineTool, type AgentDefinition } from "./define.ts";
import { cancelOpenSteps } from "./plan-steps.ts";

const CONDITIONS = ["Sunny", "Partly cloudy", "Overcast", "Light rain", "Windy", "Clear"];

/** A stable pseudo-forecast: the demo runs offline, and tests need the same card every time. */
export function forecast(location: string): WeatherResult {
  let h = 0;
  for (const c of location.toLowerCase()) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  const temperature = 5 + (h % 25);
  return {
    location,
    temperature,
    feelsLike: temperature - 1 - (h % 3),
    conditions: CONDITIONS[h % CONDITIONS.length]!,
    humidity: 30 + (h % 60),
    windSpeed: 2 + (h % 30),
  };
}

function asRecord(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

export interface DefaultAgentOptions {
  /** Pause between plan steps, so a person (or a test) can watch the progress stream. */
  planStepDelayMs?: number;
}

export function defaultAgent(opts: DefaultAgentOptions = {}): AgentDefinition {
  const stepDelay = opts.planStepDelayMs ?? 400;

  const getWeather = defineTool({
    name: DEMO_TOOLS.getWeather,
    description: "Current weather for a city: temperature (°C), conditions, humidity, wind.",
    inputSchema: GetWeatherArgsSchema,
    execute: ({ location }) => forecast(location),
  });

  const updateTasks = defineTool({
    name: DEMO_TOOLS.updateTasks,
    description: "Replace the shared task list (state.tasks) with the complete new list.",
    inputSchema: UpdateTasksArgsSchema,
    async execute({ tasks }, ctx) {
      const before = asRecord(ctx.state.get());
      // A delta, not a snapshot: clients see exactly which tasks changed.
      const ops = fjp.compare(before, { ...before, tasks });
      if (ops.length > 0) await ctx.state.patch(ops);
      return { tasks: tasks.length, done: tasks.filter((t) => t.done).length };
    },
  });

  const runPlan = defineTool({
    name: DEMO_TOOLS.runPlan,
    description: "Carry out a multi-step plan; its progress is shown live in state.plan.",
    inputSchema: RunPlanArgsSchema,
    onCancelState: cancelOpenSteps("/plan/steps"),
    async execute({ goal, steps }, ctx) {
      await ctx.state.patch([
        { op: "add", path: "/plan", value: { goal, steps: steps.map((description) => ({ description, status: "pending" })) } },
      ]);
      for (const [i, description] of steps.entries()) {
        await ctx.state.patch([{ op: "replace", path: `/plan/steps/${i}/status`, value: "running" }]);
        await ctx.progress({ goal, step: i + 1, of: steps.length, description }, "plan-progress");
        await ctx.terminal(`[${i + 1}/${steps.length}] ${description}\n`);
        await abortableWait(stepDelay, ctx.signal);
        await ctx.state.patch([{ op: "replace", path: `/plan/steps/${i}/status`, value: "completed" }]);
      }
      await ctx.terminal(`plan complete: ${goal}\n`);
      return { goal, completed: steps.length };
    },
  });

  return defineAgent({
    id: "default",
    description: "Threadline's demo agent: weather cards, a shared task list, live plans, and your frontend tools.",
    greeting: "Hi! I am Threadline's demo agent. Ask for the weather, a plan, a task, or a new background; the conversation survives a reload.",
    suggestions: ["What's the weather in Paris?", "Make a plan to launch the website", "Add a task: water the plants", "Change the background to blue"],
    instructions:
      "You are Threadline's demo assistant. Use get_weather for weather questions, update_tasks to change the " +
      "shared task list (always send the complete list), and run_plan for multi-step work. Use the client's " +
      "tools when the user asks for what they do. Be brief.",
    tools: [getWeather, updateTasks, runPlan],
    maxTurns: 8,
  });
}
