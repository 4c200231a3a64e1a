# Threadline in a container: the standalone server (what `npm start` runs) on Node 22 as the
# unprivileged `node` user, with bubblewrap for the coding agent's command sandbox.
#   docker build -t threadline .
#   docker run -p 3000:3000 -e DATABASE_URL=postgres://user:pass@db:5432/app threadline
# compose.yaml runs it beside Postgres in one command. Without DATABASE_URL it runs on embedded
# PGlite in the /data volume: one instance per volume (a second refuses to start).

FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# The package as it ships (dist/: server, protocol, conformance kit and the built app), then only
# its runtime dependencies.
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:22-bookworm-slim
# bubblewrap: the coding agent's commands run in it. It needs user namespaces, which Docker's
# default seccomp profile refuses; without them the agent says so and runs no command
# (docs/coding-agent.md).
RUN apt-get update \
  && apt-get install -y --no-install-recommends bubblewrap \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data && chmod 0700 /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# /readyz answers 200 only once the server serves runs (start() finished, not draining); /healthz
# (a liveness probe) answers while the process runs. The start period is the longest start
# measured with every core busy (132 s, docs/startup.md) and some: a probe that fails earlier
# does not count against the retries.
HEALTHCHECK --interval=10s --timeout=5s --start-period=180s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM drains the runs in flight (DRAIN_TIMEOUT_MS, 10 s) and hands the rest over to another
# instance: give the container a stop grace period a few seconds above it (compose.yaml: 15 s).
STOPSIGNAL SIGTERM
CMD ["node", "dist/server/main.js"]
