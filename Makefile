# AutoHeal — see README.md.
GO        ?= go
SCENARIO  ?= testdata/examples/checkout-fails-payment-typeerror
EXAMPLES  ?= testdata/examples
CORPUS    ?= testdata/scenarios testdata/holdout testdata/holdout2 testdata/holdout3 testdata/holdout4 testdata/holdout5 testdata/holdout6 \
             testdata/holdout7 testdata/holdout8 testdata/holdout9 testdata/holdout10 testdata/holdout11 testdata/holdout12 testdata/k8s
BIN       := bin/bot

.PHONY: all build test test-short race vet tidy-check bench demo eval fuzz clean helm-check image-check jaeger

all: build

build:
	$(GO) build -o $(BIN) ./cmd/bot

# The one test command (CI runs it too). Finds or starts a Redis; the
# real-Jaeger tests use the binary `make jaeger` caches (they skip without it).
# RACE_PKGS run under the race detector, the rest without it (each once).
test:
	RACE_PKGS="$(RACE_PKGS)" GO="$(GO)" ./scripts/with-redis.sh ./scripts/test.sh

# Build (once) and cache the real Jaeger v1.75.0 the integration tests run.
jaeger:
	./scripts/jaeger.sh build

vet:
	$(GO) vet ./...

# The packages that run goroutines against shared state, under the race
# detector (make test runs them so; this runs only them).
RACE_PKGS ?= ./bot ./sessions ./alerts ./investigate/mcp ./investigate/capset ./remediate ./cmd/bot
race:
	./scripts/with-redis.sh $(GO) test -race -count=1 -timeout 20m $(RACE_PKGS)

# go.mod and go.sum must be what `go mod tidy` writes.
tidy-check:
	@$(GO) mod tidy -diff >/dev/null || { echo "go.mod/go.sum are not tidy: run go mod tidy" >&2; $(GO) mod tidy -diff; exit 1; }

# Benchmarks print figures and ratios; no timing assertions live in tests.
bench:
	./scripts/with-redis.sh ./scripts/bench.sh

# The whole flow against the simulators (and an embedded Redis when REDIS_URL is unset).
demo: build
	./$(BIN) demo --scenario $(SCENARIO)

eval: build
	./$(BIN) eval $(EXAMPLES) $(CORPUS)

# Fuzz the Alertmanager webhook decoder for a bounded time (seeds: the
# scenarios' alerts). FUZZTIME=2m make fuzz for longer. Minimisation of a
# new interesting input is bounded (-fuzzminimizetime), so the large seeds
# do not stall the run at 0 execs/s.
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $${FUZZTIME:-20s} -fuzzminimizetime $${FUZZMINIMIZETIME:-100x} ./alerts

# Chart lint, render and validation against the Kubernetes API types (offline).
helm-check:
	./scripts/helm-check.sh

# Also the Dockerfile's build line: a static binary.
image-check:
	./scripts/helm-check.sh --image

clean:
	rm -rf bin
