#!/usr/bin/env bash
# Used by the Dockerfile's build stage: compiles one workspace (a service or a tool) and copies into
# OUT what it needs at run time: its production dependencies, the compiled workspaces it links to
# (with their package.json, which some read at run time) and a main.js that starts it.
# Usage: scripts/image-bundle.sh SERVICE OUT   (run from the repository root, after npm ci)
set -euo pipefail
service="${1:?SERVICE build argument missing (gateway, payments, pix-provider-adapter, webhook-dispatcher, psp-simulator, admin)}"
out="${2:?output folder missing}"

if [ -d "services/$service" ]; then dir="services/$service"
elif [ -d "tools/$service" ]; then dir="tools/$service"
else echo "unknown SERVICE: $service" >&2; exit 1
fi

npx tsc -b "$dir"
# The gateway's browser scripts, bundled into its dist (needs esbuild: before the dev dependencies go).
npm run -s --if-present --workspace "$dir" build:browser
# Replaces node_modules with the production dependencies of this workspace and the ones it uses.
npm ci --omit=dev --no-audit --no-fund --ignore-scripts --workspace "$dir"

mkdir -p "$out"
cp package.json "$out/"
cp -a node_modules "$out/"
for link in node_modules/@pix/*; do
  ws="$(realpath --relative-to=. "$link")"
  mkdir -p "$out/$ws"
  cp -a "$ws/package.json" "$ws/dist" "$out/$ws/"
  # A dependency whose version differs from the hoisted one is installed beside the workspace.
  if [ -d "$ws/node_modules" ]; then cp -a "$ws/node_modules" "$out/$ws/"; fi
done
printf "require('./%s/dist/main.js');\n" "$dir" > "$out/main.js"
cp scripts/image-healthcheck.js "$out/healthcheck.js"
