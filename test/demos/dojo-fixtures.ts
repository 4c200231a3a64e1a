/**
 * aimock fixtures for the AG-UI dojo's e2e scenarios (apps/dojo/e2e in the ag-ui repository):
 * the dojo's prompts, answered with the reference agents' tool names and argument shapes, the
 * way its recorded fixtures answer them. Written here, not copied: the texts are ours.
 *
 * Where a dojo scenario checks that something reached the model (the user's unchecked step, the
 * ingredient added in the page, an earlier message), the answer is computed from the request, so
 * the scenario fails if the server dropped it. Matching: a request that ends with a tool result
 * is answered by the follow-up fixtures first (the last user message is still the one that
 * asked), then the prompts, each scoped to the tool its agent is offered.
 */
import type { ChatCompletionRequest, ChatMessage, Fixture } from "@copilotkit/aimock";

export const DOJO_TOOLS = {
  changeBackground: "change_background",
  getWeather: "get_weather",
  generateTaskSteps: "generate_task_steps",
  generateTaskStepsGenerativeUi: "generate_task_steps_generative_ui",
  generateHaiku: "generate_haiku",
  updateWorkingMemory: "updateWorkingMemory",
  writeDocumentLocal: "write_document_local",
  confirmChanges: "confirm_changes",
  /** The dojo's interrupt agent's tool, and the `approvals` agent's: the name is the same. */
  scheduleMeeting: "schedule_meeting",
} as const;

/** The dojo's prompts, as its specs type them. */
export const DOJO_PROMPTS = {
  greeting: "Hi, I am duaa",
  blue: "Hi change the background color to blue",
  pink: "Hi change the background color to pink",
  memory: ["Hey there", "My favorite fruit is Mango", "and I love listening to Kaavish", "tell me an interesting fact about Moon"],
  recall: "Can you remind me what my favorite fruit is?",
  weatherSf: "Weather in San Francisco",
  weatherNy: "Weather in New York",
  hi: "Hi",
  brownies: "Give me a plan to make brownies",
  mars: "Go to Mars",
  hitlEggs:
    "Give me a plan to make brownies, there should be only one step with eggs and one step with oven, this is a strict requirement so adhere",
  hitlMars: "Plan a mission to Mars with the first step being Start The Planning",
  hitlAsk: (item: string) => `Does the planner include ${item}? ⚠️ Reply with only words 'Yes' or 'No' (no explanation, no punctuation).`,
  haikuWin: 'Generate Haiku for "I will always win"',
  haikuMoon: 'Generate Haiku for "The moon shines bright"',
  pasta: 'Please give me a pasta recipe of your choosing, but one of the ingredients should be "Pasta"',
  allIngredients: "Give me all the ingredients",
  dragon: "Give me a story for a dragon called Atlantis in document",
  lola: "Change dragon name to Lola",
  bookCall: "Book an intro call with the sales team to discuss pricing.",
} as const;

export const GREETING_REPLY = "Hello duaa! How can I assist you today?";
export const HELLO_REPLY = "Hello! How can I assist you today?";
export const TOOL_DONE_REPLY = "Done! I've completed that for you.";
export const MEETING_NOT_BOOKED_REPLY = "Cancelled: the meeting was not scheduled.";

function text(content: ChatMessage["content"] | undefined): string {
  if (typeof content === "string") return content;
  return (content ?? []).map((p) => (p.type === "text" ? (p.text ?? "") : "")).join("");
}

function lastUser(req: ChatCompletionRequest): string {
  return text(req.messages.findLast((m) => m.role === "user")?.content);
}

function endsWithUser(req: ChatCompletionRequest): boolean {
  return req.messages.at(-1)?.role === "user";
}

function offers(req: ChatCompletionRequest, tool: string): boolean {
  return (req.tools ?? []).some((t) => t.function.name === tool);
}

/** The call a tool result answers, and that result, for the request's last message. */
function lastResult(req: ChatCompletionRequest): { name: string; args: unknown; result: unknown } | undefined {
  const last = req.messages.at(-1);
  if (last?.role !== "tool") return undefined;
  const call = req.messages.flatMap((m) => m.tool_calls ?? []).find((c) => c.id === last.tool_call_id);
  if (!call) return undefined;
  return { name: call.function.name, args: JSON.parse(call.function.arguments), result: parse(text(last.content)) };
}

function parse(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}

/** A prompt fixture: the last user message contains `prompt`, and the agent offers `tool` (when given). */
function on(prompt: string, tool: string | undefined, response: Fixture["response"]): Fixture {
  return {
    match: { predicate: (req) => endsWithUser(req) && lastUser(req).includes(prompt) && (tool === undefined || offers(req, tool)) },
    response,
  };
}

function call(name: string, args: object) {
  return { toolCalls: [{ name, arguments: JSON.stringify(args) }] };
}

const steps = (status: string, ...descriptions: string[]) => descriptions.map((description) => ({ description, status }));

export function dragonStory(name: string): string {
  return [
    `# The dragon ${name}`,
    "",
    `High above the northern cliffs lived a dragon called ${name}, whose scales held the colours of the sea at dusk.`,
    `Every winter ${name} flew over the harbour and warmed the fishing boats with a slow breath of fire.`,
    `The children of the town left bread on the rocks for ${name}, and ${name} left them sea glass in return.`,
  ].join("\n");
}

/** The steps a generate_task_steps answer kept: the user's choice, as the dojo's page sends it. */
function keptSteps(req: ChatCompletionRequest): { description: string }[] | undefined {
  let kept: { description: string }[] | undefined;
  for (const m of req.messages) {
    if (m.role !== "tool") continue;
    const c = req.messages.flatMap((x) => x.tool_calls ?? []).find((x) => x.id === m.tool_call_id);
    const answer = parse(text(m.content)) as { accepted?: boolean; steps?: { description: string }[] };
    if (c?.function.name === DOJO_TOOLS.generateTaskSteps && answer.accepted) kept = answer.steps ?? [];
  }
  return kept;
}

/** The shared state as the model reads it (the engine's stateInContext rendering: a JSON line). */
function stateSeen(req: ChatCompletionRequest): { recipe?: { ingredients?: { name: string; amount: string }[] } } | undefined {
  for (const line of req.messages.filter((m) => m.role === "system").flatMap((m) => text(m.content).split("\n"))) {
    if (!line.startsWith("{")) continue;
    const v = parse(line);
    if (typeof v === "object" && v !== null && "recipe" in v) return v as { recipe?: { ingredients?: { name: string; amount: string }[] } };
  }
  return undefined;
}

export function dojoFixtures(): Fixture[] {
  const T = DOJO_TOOLS;
  const P = DOJO_PROMPTS;
  return [
    // ---- follow-ups to tool results ----
    {
      match: { predicate: (req) => lastResult(req)?.name === T.getWeather },
      response: (req) => {
        const r = lastResult(req)!.result as { location?: string; temperature?: number; conditions?: string };
        return { content: `In ${r.location} it is ${r.temperature} °C and ${r.conditions}.` };
      },
    },
    // No answer to write_document_local: the agent follows it with confirm_changes itself, as the
    // reference agents do (the tool's followUp), so the model is not asked.
    {
      match: { predicate: (req) => lastResult(req)?.name === T.confirmChanges },
      response: (req) =>
        (lastResult(req)!.result as { accepted?: boolean }).accepted
          ? { content: "Confirmed: the story now reads as you accepted it." }
          : { content: "Rejected: the story stays as it was." },
    },
    {
      match: { predicate: (req) => lastResult(req)?.name === T.generateTaskSteps },
      response: (req) => {
        const answer = lastResult(req)!.result as { accepted?: boolean; steps?: { description: string }[] };
        return { content: answer.accepted ? `Performed: ${(answer.steps ?? []).map((s) => s.description).join("; ")}.` : "Not performed." };
      },
    },
    {
      // The booking as the tool returned it (approvals-agent.ts: {booked, title, slot}); anything
      // else in the tool message (a cancelled question) is a meeting not booked.
      match: { predicate: (req) => lastResult(req)?.name === T.scheduleMeeting },
      response: (req) => {
        const r = lastResult(req)!.result as { booked?: boolean; slot?: string };
        return { content: r.booked === true ? `Your intro call is booked for ${r.slot}.` : MEETING_NOT_BOOKED_REPLY };
      },
    },
    { match: { predicate: (req) => lastResult(req) !== undefined }, response: { content: TOOL_DONE_REPLY } },

    // ---- agentic chat ----
    on(P.greeting, undefined, { content: GREETING_REPLY }),
    on("background color to blue", T.changeBackground, call(T.changeBackground, { background: "blue" })),
    on("background color to pink", T.changeBackground, call(T.changeBackground, { background: "pink" })),
    on("Hey there", undefined, { content: HELLO_REPLY }),
    on("favorite fruit is Mango", undefined, { content: "Mango is a wonderful tropical fruit, sweet and juicy." }),
    on("listening to Kaavish", undefined, { content: "Kaavish is a wonderful musical group from Pakistan." }),
    on("fact about Moon", undefined, { content: "The Moon is Earth's only natural satellite, about 384,400 km away." }),
    on("remind me what my favorite fruit", undefined, (req) => {
      // From the conversation the server sent, not from the fixture: memory is what is tested.
      const said = req.messages.filter((m) => m.role === "user").map((m) => /favorite fruit is (\w+)/.exec(text(m.content))?.[1]).find(Boolean);
      return { content: said ? `Your favorite fruit is ${said}!` : "You have not told me." };
    }),

    // ---- backend tool rendering ----
    on(P.weatherSf, T.getWeather, call(T.getWeather, { location: "San Francisco" })),
    on(P.weatherNy, T.getWeather, call(T.getWeather, { location: "New York" })),

    // ---- human in the loop (before agentic generative UI: both know "plan to make brownies") ----
    // The question names the unchecked step, so it comes before the prompts it would match.
    on("Does the planner include", undefined, (req) => {
      const item = /include (.+?)\?/.exec(lastUser(req))?.[1] ?? "";
      const kept = keptSteps(req);
      if (!kept) return { content: "There is no plan yet." };
      return { content: kept.some((s) => s.description.toLowerCase().includes(item.toLowerCase())) ? "Yes" : "No" };
    }),

    on("one step with eggs", T.generateTaskSteps, call(T.generateTaskSteps, {
      steps: steps("enabled", "Preheat the oven to 180 °C", "Whisk two eggs with the sugar", "Fold in the cocoa and flour", "Bake for 25 minutes"),
    })),
    on("Start The Planning", T.generateTaskSteps, call(T.generateTaskSteps, {
      steps: steps("enabled", "Start The Planning", "Pick the crew", "Build the rocket", "Launch"),
    })),
    // ---- agentic generative UI ----
    on(P.hi, undefined, { content: HELLO_REPLY }),
    on("plan to make brownies", T.generateTaskStepsGenerativeUi, call(T.generateTaskStepsGenerativeUi, {
      steps: steps("pending", "Gathering the ingredients", "Melting the butter", "Mixing the batter", "Baking the brownies"),
    })),
    on(P.mars, T.generateTaskStepsGenerativeUi, call(T.generateTaskStepsGenerativeUi, {
      steps: steps("pending", "Building the spacecraft", "Training the crew", "Launching from Earth", "Landing on Mars"),
    })),

    // ---- tool-based generative UI ----
    on("I will always win", T.generateHaiku, call(T.generateHaiku, {
      japanese: ["勝ち続ける", "道はまっすぐ", "空の先"],
      english: ["I keep on winning", "the road runs straight ahead", "beyond the sky"],
      image_name: "Mount_Fuji_Lake_Reflection_Cherry_Blossoms_Sakura_Spring.jpg",
      gradient: "linear-gradient(135deg, #667eea 0%, #764ba2 100%)",
    })),
    on("moon shines bright", T.generateHaiku, call(T.generateHaiku, {
      japanese: ["月明かり", "静かな夜に", "光る詩"],
      english: ["Bright moonlight", "in the quiet night", "a shining poem"],
      image_name: "Cherry_Blossoms_Sakura_Night_View_City_Lights_Japan.jpg",
      gradient: "linear-gradient(135deg, #0c3547 0%, #2d6187 100%)",
    })),

    // ---- shared state ----
    on("pasta recipe", T.updateWorkingMemory, call(T.updateWorkingMemory, {
      memory: {
        recipe: {
          skill_level: "Intermediate",
          special_preferences: [],
          cooking_time: "30 min",
          ingredients: [
            { icon: "🍝", name: "Pasta", amount: "350 g" },
            { icon: "🍅", name: "Cherry tomatoes", amount: "300 g" },
            { icon: "🧄", name: "Garlic", amount: "3 cloves" },
          ],
          instructions: ["Cook the pasta al dente", "Roast the tomatoes with the garlic", "Toss together and serve"],
        },
      },
    })),
    on(P.allIngredients, undefined, (req) => {
      const ingredients = stateSeen(req)?.recipe?.ingredients ?? [];
      return { content: `Here are the ingredients:\n${ingredients.map((i) => `- ${i.name}: ${i.amount}`).join("\n")}` };
    }),

    // ---- predictive state updates ----
    on("dragon called Atlantis", T.writeDocumentLocal, call(T.writeDocumentLocal, { document: dragonStory("Atlantis") })),
    on(P.lola, T.writeDocumentLocal, call(T.writeDocumentLocal, { document: dragonStory("Lola") })),

    // ---- interrupt (the dojo's schedule_meeting, here the approvals agent's: {title}) ----
    on("Book an intro call", T.scheduleMeeting, call(T.scheduleMeeting, { title: "Intro call with the sales team about pricing" })),
  ];
}
