# Proctor. The two commands a newcomer needs: `make demo` and `make test`.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
PYTEST_ARGS ?=
# pytest-xdist workers for the cluster tests; they share one control plane (tests/conftest.py).
# The tests mostly wait on the API server and the judge pods, so more workers than cores pay off.
# TEST_WORKERS=0 runs everything in one process. worksteal: a worker that runs out takes tests
# queued on another, so the suite does not end with one worker going through its long cluster
# tests alone (with xdist's default, a quarter of the suite is dealt out at the start: 12 min
# against 6.5 here).
TEST_WORKERS ?= 3
XDIST := -n $(TEST_WORKERS) --dist worksteal

.PHONY: help venv k8s helm postgres promptfoo alertmanager argo-eval crds verify test test-unit test-integration test-e2e demo bench mutate dev-up dev-down clean

help: ## list the targets
	@grep -E '^[a-zA-Z0-9_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-18s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	@echo "venv: installing Proctor and its test tools into $(VENV) with pip (a few minutes the first time)"
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $@

venv: $(STAMP) ## create .venv and install Proctor with its test tools

k8s: ## build (or reuse) etcd, kube-apiserver, kube-controller-manager, kubectl from Go modules
ifdef KUBECONFIG
	@echo "KUBECONFIG is set: using that cluster, not building the local control plane"
else
	@bash hack/build-k8s.sh >/dev/null
endif

helm: ## build (or reuse) helm from its Go module into ~/.cache/proctor/tools
	@bash hack/get-helm.sh >/dev/null
	@echo "helm: ready ($$(bash hack/get-helm.sh --print))"

postgres: ## find (or install with apt-get) the PostgreSQL server binaries the store's tests start
	@bash hack/ensure-postgres.sh >/dev/null
	@echo "postgres: server binaries ready ($$(bash hack/ensure-postgres.sh))"

promptfoo: venv ## install (or reuse) the pinned promptfoo + Node into ~/.cache/proctor/bench (needs npm)
	@echo "promptfoo: installing (or reusing) the pinned promptfoo and Node into ~/.cache/proctor/bench"
	@bash hack/get-promptfoo.sh >/dev/null

argo-eval: ## build (or reuse) Argo Rollouts' own analysis-condition evaluator into ~/.cache/proctor (the canary recipes' test)
	@bash hack/build-argo-rollouts.sh >/dev/null
	@echo "argo-eval: ready ($$(bash hack/build-argo-rollouts.sh --print))"

alertmanager: ## build (or reuse) Alertmanager from its Go module into ~/.cache/proctor (the notices' real sink in tests)
	@bash hack/get-alertmanager.sh >/dev/null
	@echo "alertmanager: ready ($$(bash hack/get-alertmanager.sh --print))"

crds: venv ## regenerate crds/ and charts/proctor/crds/ from the pydantic models
	$(PY) -m proctor.api.crdgen

verify: venv ## ruff, mypy (strict), import-linter (rooms and forbidden imports), CRD drift
	$(VENV)/bin/ruff check operator tests bench
	$(VENV)/bin/ruff format --check operator tests bench
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	$(PY) -m proctor.api.crdgen --check

test: venv k8s helm postgres promptfoo alertmanager argo-eval verify ## everything: verify, unit, integration and e2e tests
	$(PY) -m pytest $(XDIST) --durations=25 tests/unit tests/integration tests/e2e $(PYTEST_ARGS)

test-unit: venv ## unit tests only (no cluster, seconds)
	$(PY) -m pytest tests/unit $(PYTEST_ARGS)

test-integration: venv k8s helm postgres promptfoo alertmanager argo-eval ## integration tests on the local control plane (or KUBECONFIG)
	$(PY) -m pytest $(XDIST) tests/integration $(PYTEST_ARGS)

test-e2e: venv k8s alertmanager ## end-to-end tests (make demo whole, the README tours, the gate stories)
	$(PY) -m pytest $(XDIST) tests/e2e $(PYTEST_ARGS)

demo: venv k8s alertmanager ## the whole story: exams, the rollout gate, live runs, an incident in Alertmanager, reviews of the judge
	@bash hack/demo.sh

bench: venv ## benchmarks, printing figures
	@bash hack/bench.sh

MUTATE_STAMP := $(VENV)/.mutate-stamp
$(MUTATE_STAMP): $(STAMP)
	$(PY) -m pip install -q -e '.[test,mutate]'
	touch $@

mutate: venv $(MUTATE_STAMP) ## mutation testing of protocol/ and graders/: kill rate per module (slow; MUTATE_ARGS="--only protocol/_verdict.py")
	$(PY) hack/mutate.py $(MUTATE_ARGS)

dev-up: venv k8s ## start the local control plane in the background
	$(VENV)/bin/proctor dev up

dev-down: venv ## stop the local control plane
	$(VENV)/bin/proctor dev down

clean: ## remove the virtual environment and caches (not the k8s binaries in ~/.cache/proctor)
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis .bench .mutate
