# syntax=docker/dockerfile:1
# One image per service, all from this file:
#   docker build --build-arg SERVICE=gateway -t pix/gateway .
# SERVICE names a folder of services/ (gateway, payments, pix-provider-adapter, webhook-dispatcher,
# psp-simulator) or of tools/ (admin, the admin CLI).
ARG NODE_IMAGE=node:20.19-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# k8s/ and the client SDK are workspaces too, but no image needs them: npm ci only wants their manifests.
COPY package.json package-lock.json tsconfig.base.json ./
COPY libs/ libs/
COPY services/ services/
COPY tools/ tools/
COPY k8s/package.json k8s/package.json
COPY clients/sdk/package.json clients/sdk/package.json
# Behind a TLS-intercepting proxy, hand npm the proxy's CA as a build secret (make images passes
# the machine's bundle): --secret id=ca-certificates,src=/etc/ssl/certs/ca-certificates.crt
RUN --mount=type=secret,id=ca-certificates \
    if [ -f /run/secrets/ca-certificates ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca-certificates; fi; \
    npm ci --no-audit --no-fund --ignore-scripts
# Every image's code compiled once, before the stage forks per SERVICE: the six builds share this
# layer, and image-bundle.sh's own compile finds it up to date.
RUN npx tsc -b services/gateway services/payments services/pix-provider-adapter services/webhook-dispatcher \
    services/psp-simulator tools/admin
ARG SERVICE
COPY scripts/image-bundle.sh scripts/image-healthcheck.js scripts/
RUN --mount=type=secret,id=ca-certificates \
    if [ -f /run/secrets/ca-certificates ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca-certificates; fi; \
    bash scripts/image-bundle.sh "$SERVICE" /bundle

FROM ${NODE_IMAGE} AS runtime
# Every service listens on all interfaces inside its container, with its ops port
# (/healthz, /readyz, /metrics) on 9100; the gateway serves on 8080, the adapter on 8081.
ENV NODE_ENV=production \
    HTTP_HOST=0.0.0.0 \
    OPS_HOST=0.0.0.0 \
    OPS_PORT=9100
WORKDIR /app
COPY --from=build /bundle/ ./
# The image's own non-root user (uid 1000); the files stay root's, so the process cannot change them.
USER node
EXPOSE 9100
# node is PID 1 and handles SIGTERM itself (graceful shutdown in libs/runtime). The heap flags keep
# a service's memory near its live heap under load (docs/operations.md: memory); they are
# tools/devstack's SERVICE_HEAP_FLAGS, which the bench measures (a test holds the two equal).
# Compose and Kubernetes run this CMD; the admin image's commands replace it.
CMD ["node", "--max-old-space-size=192", "--max-semi-space-size=8", "main.js"]
