# app.py: python3 -m pip install fastapi uvicorn; python3 app.py (port 8000, or AGENT_PORT)
import json
import os
import uuid

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse

app = FastAPI()


def sse(event):
    return f"data: {json.dumps(event, separators=(',', ':'))}\n\n"


@app.post("/agent")
async def agent(request: Request):
    try:  # RunAgentInput: threadId, runId, messages, state, tools, ...
        body = await request.json()
        thread_id, run_id = body["threadId"], body["runId"]
        users = [m for m in body["messages"] if m["role"] == "user"]
    except (ValueError, KeyError, TypeError):  # not JSON, or not a RunAgentInput: a 400, no stream
        return JSONResponse({"error": "Send an AG-UI RunAgentInput: threadId, runId, messages."}, status_code=400)
    said = users[-1]["content"] if users else ""
    answer = f"You said: {said}. This is turn {len(users)}."
    message_id = str(uuid.uuid4())

    async def events():
        yield sse({"type": "RUN_STARTED", "threadId": thread_id, "runId": run_id})
        yield sse({"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"})
        for i in range(0, len(answer), 50):  # 50-character chunks
            yield sse({"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": answer[i:i + 50]})
        yield sse({"type": "TEXT_MESSAGE_END", "messageId": message_id})
        state = {**(body.get("state") or {}), "turns": len(users)}
        yield sse({"type": "STATE_SNAPSHOT", "snapshot": state})
        yield sse({"type": "RUN_FINISHED", "threadId": thread_id, "runId": run_id})

    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(os.environ.get("AGENT_PORT", "8000")))
