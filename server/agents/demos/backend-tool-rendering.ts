/**
 * Dojo feature "backend tool rendering": the tool runs on the server (get_weather) and the page
 * draws its call and its result as a card (CopilotKit's useRenderTool), instead of text.
 */
import { GetWeatherArgsSchema } from "../../demo/fixtures.ts";
import { forecast } from "../default-agent.ts";
import { defineAgent, defineTool, type AgentDefinition } from "../define.ts";

export const BACKEND_TOOL_RENDERING_ID = "backend_tool_rendering";

export function backendToolRenderingAgent(): AgentDefinition {
  const getWeather = defineTool({
    name: "get_weather",
    description: "Current weather for a city: temperature (°C), conditions, humidity, wind.",
    inputSchema: GetWeatherArgsSchema,
    execute: ({ location }) => forecast(location),
  });
  return defineAgent({
    id: BACKEND_TOOL_RENDERING_ID,
    description: "Backend tool rendering: get_weather runs on the server; the page renders its call and result as a card.",
    greeting: "Ask me about the weather: the server looks it up and the page draws it as a card.",
    suggestions: ["What's the weather in Paris?", "Check the weather in Paris and Tokyo in parallel"],
    instructions:
      "You are a weather assistant. For any question about the weather, call get_weather for each city asked " +
      "about, then sum the result up in one sentence.",
    tools: [getWeather],
    maxTurns: 4,
  });
}
