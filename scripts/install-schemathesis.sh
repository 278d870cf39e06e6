#!/usr/bin/env bash
# Schemathesis, the OpenAPI fuzzer the contract tests run against the real stack
# (tests/contract/schemathesis.test.ts), from PyPI at a pinned version, in a virtualenv under .tools/.
# Does nothing when that version is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=4.32.5
VENV=.tools/schemathesis

if [ "$("$VENV/bin/st" --version 2>/dev/null || true)" = "st, version $VERSION" ]; then exit 0; fi
echo "installing schemathesis $VERSION into $VENV"
rm -rf "$VENV"
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$VERSION"
