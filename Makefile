# The two commands a newcomer needs: `make up` (the whole stack, in the background) and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := help
STACK := node tools/devstack/dist/main.js

.PHONY: help install infra build up down status logs test test-unit chaos lint format bench k8s images compose-test k8s-test

help: ## List the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-8s %s\n", $$1, $$2}'

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

install: node_modules/.package-lock.json infra ## Install npm packages, the infrastructure binaries and the commit-msg hook
	@# The commit message rule as a git hook (docs/development.md), unless a hook of one's own is there.
	@# A linked worktree has no .git folder: nothing is installed.
	@if [ -d .git/hooks ]; then \
	  if [ ! -e .git/hooks/commit-msg ] || cmp -s scripts/commit-msg .git/hooks/commit-msg; then \
	    install -m 0755 scripts/commit-msg .git/hooks/commit-msg; \
	  else echo "make install: .git/hooks/commit-msg is not scripts/commit-msg; left as it is"; fi; \
	fi

infra: ## nats-server and FerretDB 2 into .tools/bin; PostgreSQL with DocumentDB; Debian validators; Schemathesis; the Python SDK's tools
	@bash scripts/install-infra.sh
	@bash scripts/install-postgresql.sh
	@bash scripts/install-system-packages.sh
	@bash scripts/install-schemathesis.sh
	@bash scripts/install-python-sdk-tools.sh

build: install ## Compile every package, and bundle the gateway's browser scripts
	npm run -s build

up: build ## Start NATS, PostgreSQL, FerretDB, the four services and the PSP simulators on loopback, in the background
	@$(STACK) up

down: ## Stop exactly what `make up` started
	@if [ -f tools/devstack/dist/main.js ]; then $(STACK) down; else echo "Nothing running."; fi

status: ## Show the processes `make up` started
	@if [ -f tools/devstack/dist/main.js ]; then $(STACK) status; else echo "Nothing running."; fi

logs: ## Follow the stack's logs
	tail -F .run/logs/*.log

lint: build ## Commit messages since 28b827e, formatter check, linter, type check of the tests (jest only transpiles them), mypy and ruff on clients/python
	bash scripts/check-commit-messages.sh
	@# PHP's own parser over every PHP file (clients/php), tracked or new; only the errors are shown.
	git ls-files -z --cached --others --exclude-standard '*.php' | xargs -0 -r -n1 php -d display_errors=stderr -d log_errors=0 -l >/dev/null
	npx prettier --check .
	npx eslint .
	npx tsc -p tsconfig.test.json --noEmit
	cd clients/python && ../../.tools/python-sdk/bin/mypy src tests conformance_runner.py
	cd clients/python && ../../.tools/python-sdk/bin/ruff check . && ../../.tools/python-sdk/bin/ruff format --check .

format: install ## Format every file
	npx prettier --write .

test: build lint ## Every test in its three layers (unit, service, system; starts and stops what it needs), the chaos test alone, then the compose stack
	npx jest --ci --selectProjects unit service system
	npx jest --ci --selectProjects chaos
	$(MAKE) compose-test

images: build ## Every image with podman, from Debian's archive and this checkout, no registry (docs/deploy.md)
	bash scripts/images.sh

compose-test: images ## The compose stack from those images: the walkthrough, a service killed and restarted
	bash scripts/compose-test.sh

chaos: build ## The chaos test alone at issue 19's 50 creates a second (make test runs it at 6); give it the machine to itself
	CHAOS_RATE=$${CHAOS_RATE:-50} npx jest --ci --selectProjects chaos

test-unit: node_modules/.package-lock.json ## The unit layer only: no stack, no I/O, seconds
	npx jest --ci --selectProjects unit

bench: build ## Measure the API at 1,000 and 100,000 payments beside raw ceilings, with a baseline commit (BENCH_BASE=<ref>|none, BENCH_QUICK=1)
	node tools/bench/dist/main.js

k8s-test: images ## A one-node Kubernetes built here (scripts/k8s/build-cluster.sh) runs the small-node profile: walkthrough, pods killed, NetworkPolicies
	bash scripts/k8s/test.sh

k8s: build ## Synthesise the Kubernetes manifests (k8s/platform.json) into k8s/dist/
	node k8s/build/main.js
