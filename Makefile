# graphcc: make build | test | bench | fuzz | fmt | vet | clean

GO        ?= go
BIN       ?= bin/graphcc
FUZZTIME  ?= 20s

.PHONY: all build test bench fuzz fmt vet clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/graphcc

# The whole suite: vet, then every package's tests.
test:
	$(GO) vet ./... && $(GO) test ./...

bench:
	$(GO) run ./cmd/graphcc bench

# A short run of every Fuzz* target, $(FUZZTIME) each. Targets are found by
# grepping the test files, so new ones are picked up without editing this.
fuzz:
	@set -e; \
	targets=$$(grep -rl --include='*_test.go' '^func Fuzz' . | sort); \
	if [ -z "$$targets" ]; then echo "no fuzz targets"; exit 0; fi; \
	for file in $$targets; do \
		dir=$$(dirname $$file); \
		for name in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$file); do \
			echo "== $$dir $$name ($(FUZZTIME))"; \
			$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$dir; \
		done; \
	done

fmt:
	gofmt -l -w .

vet:
	$(GO) vet ./...

clean:
	rm -rf bin
	$(GO) clean -testcache

# The P4 program: p4c-bm2-ss (p4lang/p4c, on PATH) compiles p4src/graphcc.p4
# into the BMv2 JSON and the P4Info (text) beside it.
P4C       ?= p4c-bm2-ss
P4SRC_DIR ?= p4src

.PHONY: p4
p4:
	$(P4C) --arch v1model --std p4-16 --p4runtime-files $(P4SRC_DIR)/graphcc.p4info.txtpb -o $(P4SRC_DIR)/graphcc.json $(P4SRC_DIR)/graphcc.p4
