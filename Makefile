# graphcc: make build | test | race | bench | fuzz | fmt | vet | clean | p4 | testbed | yardsticks | yardsticks-joint

GO        ?= go
BIN       ?= bin/graphcc
FUZZTIME  ?= 20s

.PHONY: all build test race bench fuzz fmt vet clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/graphcc

# The whole suite: vet, then every package's tests, through
# internal/cmd/testsummary: go test's package results and failures, then
# every skipped test with its reason and "N passed, N failed, N skipped".
# pipefail keeps go test's failure.
test: SHELL := /bin/bash
test: .SHELLFLAGS := -o pipefail -ec
test:
	$(GO) vet ./...
	$(GO) test -json ./... | $(GO) run ./internal/cmd/testsummary

# The tests of every package whose code or tests start goroutines (a go
# statement, or Go of a sync.WaitGroup or an errgroup.Group: found by
# grep, so a new one is picked up) under the race detector, summarized as
# make test does. tests/ is left out: its tests run the graphcc binary,
# which -race does not instrument. -short trims the longest tests (those
# that train a model or run a search or evaluation several times skip,
# saying so in the summary; the MPNN gradient check samples parameters):
# the race detector makes code 5 to 10 times slower, and CI has 2 cores.
# RACE_SKIP names the tests not run at all under -race (make test runs
# them): they train models several times over (tens of minutes under
# -race on a busy 2-core machine), and the trainer's goroutines run in
# the training tests that remain. -race needs cgo: a C compiler and libc's
# headers.
RACE_PKGS ?= ${shell grep -rlE --include='*.go' '(^|[[:space:]])go (func|[A-Za-z_][A-Za-z0-9_.]*[(])|[.]Go[(]' . | \
	xargs -n1 dirname | sort -u | grep -v -e '^[.]/tests$$' -e '/testdata'}
race: SHELL := /bin/bash
race: .SHELLFLAGS := -o pipefail -ec
RACE_SKIP ?= ^(TestTrainResumeIsExact|TestTrainOnFailures)$$
race:
	@echo "make race: not run under -race (make test runs them): $(RACE_SKIP)"
	$(GO) test -race -short -skip '$(RACE_SKIP)' -timeout 20m -json $(addsuffix /,$(RACE_PKGS)) | $(GO) run ./internal/cmd/testsummary

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

# The testbed end to end (root, BMv2 on PATH: the Vagrant VM, or any Linux
# host with BMv2 and PI): compile the P4 program if p4c is on PATH (else the
# committed build is used; graphcc embeds it), bring the GraphCC Clos
# up, run the default workload under static DCQCN and under GraphCC, print
# their comparison, and take everything down, also when the run fails.
# TESTBED_UP and TESTBED_RUN add flags (say TESTBED_UP='--hosts-per-leaf 2'
# or TESTBED_RUN='--duration 2ms'); outputs go to $(TESTBED_OUT).
# TESTBED_SCALE is the lab's --scale: 40000 keeps the switches and hosts
# ahead of the traffic on a 2-core machine (about 18 minutes); a bigger
# machine may use 10000 (about 5 minutes). docs/testbed.md.
LAB           ?= gcc
TESTBED_SCALE ?= 40000
TESTBED_OUT   ?= testbed-out
TESTBED_UP    ?=
TESTBED_RUN   ?=
SUDO          ?= $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: testbed
testbed:
	@if command -v $(P4C) >/dev/null 2>&1; then $(MAKE) --no-print-directory p4; \
	else echo "make testbed: $(P4C) is not on PATH: using the compiled program committed in $(P4SRC_DIR)/"; fi
	$(MAKE) --no-print-directory build
	mkdir -p $(TESTBED_OUT)
	$(SUDO) $(BIN) testbed down --lab $(LAB) >/dev/null
	$(SUDO) $(BIN) testbed up --lab $(LAB) --scale $(TESTBED_SCALE) $(TESTBED_UP)
	$(SUDO) $(BIN) testbed run --lab $(LAB) --policies static,graphcc --compare-sim \
		--summary-out $(TESTBED_OUT)/summary.json --fct-out $(TESTBED_OUT)/fct.txt \
		--trace-out $(TESTBED_OUT)/telemetry.csv $(TESTBED_RUN); \
	status=$$?; $(SUDO) $(BIN) testbed down --lab $(LAB); exit $$status

# The tuned yardsticks eval measures learned policies against (docs/learning.md,
# "Yardsticks"): per scenario the best fixed setting graphcc tune finds on its
# validation seeds (tune's default search), in $(TUNED_DIR)/NAME.json for
# tuned:$(TUNED_DIR); and one setting for the whole suite, $(TUNED_GLOBAL),
# for tuned:$(TUNED_GLOBAL), made last: its grid's scores come from the
# per-scenario files (tune --reuse), so only its refinement is simulated,
# and it is made again when one of them is newer. Per-scenario files
# already there are kept: delete one to make it again. Hours of CPU in all
# (docs/learning.md says how long each took).
TUNED_DIR           ?= models/tuned
TUNED_GLOBAL        ?= models/tuned-global.json
YARDSTICK_SCENARIOS ?= fb60-incast fb60 websearch60 alistorage60 fb80 fb90 fail1 fail2 flat8 flat12 day day-b day-held googlerpc60
TUNE_FLAGS          ?=

.PHONY: yardsticks
yardsticks: $(patsubst %,$(TUNED_DIR)/%.json,$(YARDSTICK_SCENARIOS)) $(TUNED_GLOBAL)

$(TUNED_DIR)/%.json:
	@mkdir -p $(TUNED_DIR)
	$(MAKE) --no-print-directory build
	$(BIN) tune --scenario $* $(TUNE_FLAGS) --json $@

$(TUNED_GLOBAL): $(patsubst %,$(TUNED_DIR)/%.json,$(YARDSTICK_SCENARIOS))
	@mkdir -p $(dir $(TUNED_GLOBAL))
	$(MAKE) --no-print-directory build
	$(BIN) tune --scenario all --grid paper --reuse $(TUNED_DIR) $(TUNE_FLAGS) --json $@

# The switch-only model, embedded in the binary (graphcc:bare-switch, and
# held to tuned:switch graphcc:switch; the default graphcc until 2026-12-08;
# docs/learning.md, "The shipped model"): imitation, on the scenarios of CURRICULUM, of each one's best
# setting of the rpc action table, in $(TEACHER_DIR)/NAME.json: tune on
# that table's 120 settings (--grid actions:rpc --refine 0), whose scores
# the extended searches of $(TUNED_DIR) already hold but for the 1 KB kmax
# and the 128 KB kmin (--reuse). Minutes on 2 cores; the same flags give
# the same weights.
SHIPPED_MODEL ?= gnn/models/graphcc.model
TEACHER_DIR   ?= models/tuned-rpc
CURRICULUM    ?= fb60-incast fb60 websearch60 alistorage60 googlerpc60
comma         := ,
empty         :=
space         := $(empty) $(empty)

$(TEACHER_DIR)/%.json: $(TUNED_DIR)/%.json
	@mkdir -p $(TEACHER_DIR)
	$(MAKE) --no-print-directory build
	$(BIN) tune --scenario $* --grid actions:rpc --refine 0 --reuse $(TUNED_DIR) $(TUNE_FLAGS) --json $@

$(SHIPPED_MODEL): $(patsubst %,$(TEACHER_DIR)/%.json,$(CURRICULUM))
	$(MAKE) --no-print-directory build
	$(BIN) train --scenario $(subst $(space),$(comma),$(CURRICULUM)) --features flowmix --actions rpc \
		--objective imitate --teacher tuned:$(TEACHER_DIR) --episodes 150 --seed 1 --workers 2 \
		--validate-seeds 2001-2002 --validate-every 25 --model-out $@

# The default's model, embedded in the binary by package models
# (graphcc:bare, and held to tuned:joint the default graphcc;
# docs/learning.md, "The host-head model kept" and "The shipped default"):
# imitation of $(TEACHER_JOINT_DIR), the joint tunes
# of $(TUNED_JOINT_DIR) copied, with three labels made by hand (each file's
# "note" says which and why), on the scenarios of HOSTS_CURRICULUM. About 7
# minutes on 2 cores; the same flags give the same weights.
HOSTS_MODEL       ?= models/graphcc-hosts.model
TEACHER_JOINT_DIR ?= models/teacher-joint
HOSTS_CURRICULUM  ?= fb60-incast,fb60,websearch60,alistorage60,googlerpc60,day,day-b

$(HOSTS_MODEL): $(wildcard $(TEACHER_JOINT_DIR)/*.json)
	$(MAKE) --no-print-directory build
	$(BIN) train --scenario $(HOSTS_CURRICULUM) --hosts --host-actions tuned:$(TEACHER_JOINT_DIR) \
		--features flowmix --actions extended --objective imitate --teacher tuned:$(TEACHER_JOINT_DIR) \
		--episodes 150 --seed 1 --workers 2 --validate-seeds 2001-2002 --validate-every 25 --model-out $@

# The joint yardsticks, for models that set the hosts' DCQCN too: each
# scenario's search with the hosts' reaction point (tune --dcqcn), started
# from its switch-only file (--reuse $(TUNED_DIR), with the grid that file
# ran: the extended one for the five scenarios tuned first, when it was
# tune's default, the paper's for the others), so only the DCQCN rounds
# and the refinement after them are simulated; then one joint setting for
# the whole suite from those files' scores.
TUNED_JOINT_DIR         ?= models/tuned-joint
TUNED_JOINT_GLOBAL      ?= models/tuned-joint-global.json
EXTENDED_GRID_SCENARIOS ?= fb60-incast fb60 websearch60 alistorage60 googlerpc60

.PHONY: yardsticks-joint
yardsticks-joint: $(patsubst %,$(TUNED_JOINT_DIR)/%.json,$(YARDSTICK_SCENARIOS)) $(TUNED_JOINT_GLOBAL)

$(TUNED_JOINT_DIR)/%.json: $(TUNED_DIR)/%.json
	@mkdir -p $(TUNED_JOINT_DIR)
	$(MAKE) --no-print-directory build
	$(BIN) tune --scenario $* --dcqcn --reuse $(TUNED_DIR) \
		--grid $(if $(filter $*,$(EXTENDED_GRID_SCENARIOS)),extended,paper) $(TUNE_FLAGS) --json $@

$(TUNED_JOINT_GLOBAL): $(patsubst %,$(TUNED_JOINT_DIR)/%.json,$(YARDSTICK_SCENARIOS))
	@mkdir -p $(dir $(TUNED_JOINT_GLOBAL))
	$(MAKE) --no-print-directory build
	$(BIN) tune --scenario all --grid paper --dcqcn --reuse $(TUNED_JOINT_DIR) $(TUNE_FLAGS) --json $@

# A teacher that knows the traffic family's regimes (docs/learning.md,
# "Labels that know the family's traffic"): each regime of
# graphcc/learn/regime (workload x load band x incasts) measured as a
# stationary scenario under the global joint constant and the stationary
# labels of $(TEACHER_JOINT_DIR); a regime keeps the constant unless a
# label beats it by more than FAMILY_MARGIN. The teacher of each training
# draw of FAMILY_DRAWS is the sched: of its phases' labels; the suite's
# scenarios keep $(TEACHER_JOINT_DIR)'s. Then the host-head model imitating
# it on the suite's curriculum and those draws.
FAMILY_REGIMES    ?= models/family-regimes.json
FAMILY_TEACHER    ?= models/teacher-family
FAMILY_MODEL      ?= models/graphcc-family.model
FAMILY_DRAWS      ?= family:17-48
FAMILY_MARGIN     ?= 0.02
FAMILY_CANDIDATES ?= fb60-incast fb60 fb80 fb90 websearch60 alistorage60 googlerpc60
REGIME_OUT        ?= /tmp/graphcc-regimes

$(FAMILY_REGIMES): $(wildcard $(TEACHER_JOINT_DIR)/*.json)
	$(MAKE) --no-print-directory build
	@mkdir -p $(REGIME_OUT)
	$(GO) run ./internal/cmd/regimeteacher scenarios -out $(REGIME_OUT)/regimes.yaml
	$(BIN) eval --scenario-file $(REGIME_OUT)/regimes.yaml --seeds 2001-2002 --rewards '' --workers 2 \
		--yardsticks '' --reference tuned:$(TUNED_JOINT_GLOBAL) --out $(REGIME_OUT) --json $(REGIME_OUT)/regimes.json \
		--policies "tuned:$(TUNED_JOINT_GLOBAL),$$(for s in $(FAMILY_CANDIDATES); do sed -n 's/.*"best_policy": "\(.*\)".*/\1/p' $(TEACHER_JOINT_DIR)/$$s.json; done | paste -sd,)"
	$(GO) run ./internal/cmd/regimeteacher table -eval $(REGIME_OUT)/regimes.json -base $(TUNED_JOINT_GLOBAL) \
		-margin $(FAMILY_MARGIN) -out $@

$(FAMILY_TEACHER): $(FAMILY_REGIMES)
	rm -rf $@
	$(GO) run ./internal/cmd/regimeteacher write -table $(FAMILY_REGIMES) -scenarios $(FAMILY_DRAWS) \
		-copy $(TEACHER_JOINT_DIR) -copy-scenarios $(HOSTS_CURRICULUM) -out $@

$(FAMILY_MODEL): $(FAMILY_TEACHER)
	$(MAKE) --no-print-directory build
	$(BIN) train --scenario $(HOSTS_CURRICULUM),$(FAMILY_DRAWS) --hosts --host-actions tuned:$(FAMILY_TEACHER) \
		--features flowmix --actions extended --objective imitate --teacher tuned:$(FAMILY_TEACHER) \
		--episodes 150 --seed 1 --workers 2 --model-out $@
