#!/usr/bin/env bash
# The Python SDK's development tools (clients/python), from PyPI at pinned versions, in a virtualenv
# under .tools/: its run-time dependencies (httpx, pydantic), the model generator, pytest, mypy, ruff,
# and build with the hatchling backend, so `python -m build --no-isolation` needs nothing else; and
# the run-time dependencies' wheels in $VENV/wheels, from which the packaging test installs the
# built wheel into a fresh virtualenv without reaching PyPI again.
# Does nothing when these exact versions are already there.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=.tools/python-sdk
PINS=(
  httpx==0.28.1
  pydantic==2.14.3
  datamodel-code-generator==0.89.0
  pytest==9.2.0
  pytest-asyncio==1.5.0
  mypy==2.4.1
  ruff==0.17.5
  build==1.6.1
  hatchling==1.33.0
)
RUNTIME=(httpx==0.28.1 pydantic==2.14.3)
STAMP="$VENV/.pins"

if [ -x "$VENV/bin/python" ] && [ "$(cat "$STAMP" 2>/dev/null || true)" = "${PINS[*]} ${RUNTIME[*]}" ]; then exit 0; fi
echo "installing the Python SDK's tools into $VENV"
rm -rf "$VENV"
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check "${PINS[@]}"
"$VENV/bin/pip" download --quiet --disable-pip-version-check --dest "$VENV/wheels" "${RUNTIME[@]}"
echo "${PINS[*]} ${RUNTIME[*]}" >"$STAMP"
