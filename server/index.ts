/** The public surface for users who run Threadline with their own agents. */
export { defineAgent, defineTool, type AgentDefinition, type ToolContext, type ToolDefinition } from "./agents/define.ts";
export { loadConfig, type Config } from "./config.ts";
export { createThreadline, type Threadline, type ThreadlineOptions } from "./threadline.ts";
