#!/usr/bin/env bash
# Writes src/pix_payments/models.py, the API's models, from the OpenAPI document the gateway serves:
#   clients/python/scripts/generate.sh http://127.0.0.1:8080/public-api/v1/openapi.json [out-file]
# (a file path works too). The settings are pyproject.toml's [tool.datamodel-codegen]; the pinned
# generator is in .tools/python-sdk (scripts/install-python-sdk-tools.sh). A test regenerates the
# models from a running stack's document and fails when the committed file differs.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
source=${1:?usage: generate.sh <openapi.json URL or file> [out-file]}
out=$(realpath -m "${2:-$here/src/pix_payments/models.py}")
tools="$here/../../.tools/python-sdk/bin"
input=$(realpath "$source" 2>/dev/null || true)
if [[ $source =~ ^https?:// ]]; then
  input=$(mktemp --suffix=.json)
  source_tmp=$input
  "$tools/python" -c 'import sys, urllib.request; sys.stdout.buffer.write(urllib.request.urlopen(sys.argv[1]).read())' \
    "$source" >"$input"
fi
generated=$(mktemp --suffix=.py)
trap 'rm -f "$generated" ${source_tmp:-}' EXIT
cd "$here" # where pyproject.toml's settings are read
# The generator warns for each date-time pattern it drops (times are kept as strings on purpose).
PYTHONWARNINGS=ignore::UserWarning "$tools/datamodel-codegen" --no-formatters --input "$input" --output "$generated"
# Formatted with fixed settings, never a configuration found near the output file, so the result
# is the same wherever it is written.
"$tools/ruff" format --quiet --isolated --line-length 120 "$generated"
cp "$generated" "$out"
echo "wrote $out"
