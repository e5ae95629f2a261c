# syntax=docker/dockerfile:1
# Two stages: the build stage runs scripts/build-release.sh (the same script CI
# runs, so the image and CI build the same thing); the runtime stage is a slim
# Node image with dist/ and production dependencies only, running as `node`.

FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY . .
RUN scripts/build-release.sh /src /app

FROM node:24-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
WORKDIR /app
COPY --from=build --chown=node:node /app /app
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 CMD ["node", "dist/healthcheck.js"]
# Node is PID 1 and handles SIGTERM / SIGINT itself (close-with-grace: stop
# accepting, finish in-flight requests, close the database); it starts no
# child processes, so there are no zombies to reap and no init is needed.
CMD ["node", "dist/server.js"]
