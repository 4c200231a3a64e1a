/**
 * The demo model on the tool-based generative UI agent: it answers every request with a call to
 * the page's generate_haiku tool. An offline model cannot write poems, so it recites classical
 * ones (Bashō, Buson, Issa) and says so; the arguments' shape is what a real model would send.
 */
import type { DemoFixture } from "../fixture.ts";
import { answeredCalls, endsWithUser, lastResultIs, lastUserText, offers, toolCall } from "../request.ts";

export const GENERATE_HAIKU = "generate_haiku";

/** The arguments the page's generate_haiku tool takes (client/src/demos/tool-based-generative-ui). */
export interface HaikuArgs {
  japanese: string[];
  english: string[];
  gradient: string;
}

interface Haiku extends HaikuArgs {
  poet: string;
  /** Words of a request that pick this haiku. */
  about: string[];
}

const HAIKU: Haiku[] = [
  {
    poet: "Matsuo Bashō",
    about: ["frog", "pond", "water", "rain"],
    japanese: ["古池や", "蛙飛び込む", "水の音"],
    english: ["An old pond —", "a frog leaps in,", "the sound of water."],
    gradient: "linear-gradient(135deg, #134e5e, #71b280)",
  },
  {
    poet: "Matsuo Bashō",
    about: ["quiet", "silence", "summer", "stone", "rock", "cicada"],
    japanese: ["閑さや", "岩にしみ入る", "蝉の声"],
    english: ["Such stillness —", "the cicada's voice", "sinks into the rocks."],
    gradient: "linear-gradient(135deg, #3a6073, #16222a)",
  },
  {
    poet: "Yosa Buson",
    about: ["moon", "sun", "flower", "spring", "evening", "sunset"],
    japanese: ["菜の花や", "月は東に", "日は西に"],
    english: ["Fields of rape flowers —", "the moon in the east,", "the sun in the west."],
    gradient: "linear-gradient(135deg, #f7b733, #fc4a1a)",
  },
  {
    poet: "Kobayashi Issa",
    about: ["courage", "fight", "small", "friend", "code", "work"],
    japanese: ["痩蛙", "まけるな一茶", "これにあり"],
    english: ["Skinny frog,", "don't give up —", "Issa is here."],
    gradient: "linear-gradient(135deg, #8e2de2, #4a00e0)",
  },
];

function pick(message: string): Haiku {
  const words = message.toLowerCase();
  const matched = HAIKU.find((h) => h.about.some((w) => words.includes(w)));
  if (matched) return matched;
  let h = 0;
  for (const c of words) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return HAIKU[h % HAIKU.length]!;
}

export function toolBasedGenerativeUiFixtures(): DemoFixture[] {
  return [
    {
      match: { predicate: lastResultIs(GENERATE_HAIKU) },
      response: (req) => {
        const english = (answeredCalls(req).at(-1)?.args.english ?? []) as string[];
        const poet = HAIKU.find((h) => h.english[0] === english[0])?.poet;
        return {
          content: poet
            ? `That one is by ${poet}: the offline demo model recites classics, a real model writes its own.`
            : "There is your haiku.",
        };
      },
    },
    {
      match: { predicate: (req) => offers(req, GENERATE_HAIKU) && endsWithUser(req) },
      response: (req) => {
        const { japanese, english, gradient } = pick(lastUserText(req));
        return { toolCalls: [toolCall(req, 0, GENERATE_HAIKU, { japanese, english, gradient } satisfies HaikuArgs)] };
      },
    },
  ];
}
