# futures-mm-engine container image: the engine (default command) and, with
# `node dist/dashboard.js` as its command, the dashboard. See docs/deployment.md.
#
#   docker build -t futures-mm-engine:0.1.0 .
#   docker run --rm -p 127.0.0.1:9090:9090 futures-mm-engine:0.1.0
#
# Two stages: `build` installs every dependency (dev ones included: TypeScript, esbuild) and runs
# `npm run build`; the runtime stage holds only production dependencies, the bundles in dist/,
# the config and the models, and runs as the unprivileged user `engine`.
# The base image is pinned to an exact Node release; bump it deliberately (and the test with it).

FROM node:20.20.2-bookworm-slim AS build
WORKDIR /src
# Dependencies first, so a source change does not reinstall them.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# models/ may be absent from the context (the engine then runs without predictions): make sure
# the directory exists so the runtime stage can copy it either way.
RUN npm run build && mkdir -p models

FROM node:20.20.2-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
# Fixed ids, so files on bind mounts and volumes can be granted to the user from the host.
RUN groupadd --system --gid 10001 engine \
    && useradd --system --uid 10001 --gid engine --home-dir /app --no-create-home --shell /usr/sbin/nologin engine
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /src/dist ./dist
# The container config (absolute /app paths) is the one the engine reads; the shipped default
# config/config.toml stays beside it as the reference of every key.
COPY config/container.toml ./config.toml
COPY config/config.toml ./config/config.toml
COPY --from=build /src/models ./models
# What a strategy file imports (the port and the two constant modules it re-exports) and the
# example strategies, at the paths they have in a clone: --strategy-file examples/strategies/...
# works here as there; esbuild (a production dependency) compiles them at load.
COPY src/strategy/port.ts ./src/strategy/port.ts
COPY src/core/events.ts ./src/core/events.ts
COPY src/book/no-price.ts ./src/book/no-price.ts
COPY examples ./examples
# Writable state: journals and results (/app/data) and log files (/app/logs). The named volumes
# compose mounts there start as copies of these directories, owned by engine.
RUN mkdir -p /app/data /app/logs && chown engine:engine /app/data /app/logs
USER engine
# HOST and DASHBOARD_HOST: every interface of the container (both default to 127.0.0.1 outside
# one, which here would be unreachable); `docker run -p 127.0.0.1:9090:9090` limits the host side.
ENV RUST_LOG=info RUST_BACKTRACE=1 PORT=9090 ENGINE_CONFIG=/app/config.toml HOST=0.0.0.0 DASHBOARD_HOST=0.0.0.0
EXPOSE 9090
# Node is the only tool the slim image is sure to have: no curl or wget.
HEALTHCHECK --interval=30s --timeout=10s --start-period=5s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||9090)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/engine.js"]
