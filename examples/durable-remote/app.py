# app.py: python3 -m pip install fastapi uvicorn; python3 app.py (port 8000, or AGENT_PORT)
import json
import os
import uuid

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse

app = FastAPI()


def sse(event):
    return f"data: {json.dumps(event, separators=(',', ':'))}\n\n"


@app.post("/agent")
async def agent(request: Request):
    body = await request.json()  # RunAgentInput: threadId, runId, messages, state, tools, ...
    users = [m for m in body["messages"] if m["role"] == "user"]
    answer = f"You said: {users[-1]['content']}. This is turn {len(users)}."
    message_id = str(uuid.uuid4())

    async def events():
        yield sse({"type": "RUN_STARTED", "threadId": body["threadId"], "runId": body["runId"]})
        yield sse({"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"})
        for i in range(0, len(answer), 50):  # 50-character chunks
            yield sse({"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": answer[i:i + 50]})
        yield sse({"type": "TEXT_MESSAGE_END", "messageId": message_id})
        state = {**(body.get("state") or {}), "turns": len(users)}
        yield sse({"type": "STATE_SNAPSHOT", "snapshot": state})
        yield sse({"type": "RUN_FINISHED", "threadId": body["threadId"], "runId": body["runId"]})

    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(os.environ.get("AGENT_PORT", "8000")))
