# AutoHeal — see README.md.
GO        ?= go
SCENARIO  ?= testdata/examples/checkout-fails-payment-typeerror
EXAMPLES  ?= testdata/examples
CORPUS    ?= testdata/scenarios testdata/holdout testdata/holdout2 testdata/holdout3 testdata/holdout4 testdata/holdout5 testdata/holdout6
BIN       := bin/bot

.PHONY: all build test test-short vet bench demo eval fuzz clean helm-check image-check

all: build

build:
	$(GO) build -o $(BIN) ./cmd/bot

# The one test command (CI runs it too). Finds or starts a Redis.
test:
	./scripts/with-redis.sh $(GO) test -count=1 ./...

vet:
	$(GO) vet ./...

# Benchmarks print figures and ratios; no timing assertions live in tests.
bench:
	./scripts/with-redis.sh ./scripts/bench.sh

# The whole flow against the simulators (and an embedded Redis when REDIS_URL is unset).
demo: build
	./$(BIN) demo --scenario $(SCENARIO)

eval: build
	./$(BIN) eval $(EXAMPLES) $(CORPUS)

# Fuzz the Alertmanager webhook decoder for a bounded time (seeds: the
# scenarios' alerts). FUZZTIME=2m make fuzz for longer.
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $${FUZZTIME:-20s} ./alerts

# Chart lint, render and validation against the Kubernetes API types (offline).
helm-check:
	./scripts/helm-check.sh

# Also the Dockerfile's build line: a static binary.
image-check:
	./scripts/helm-check.sh --image

clean:
	rm -rf bin
