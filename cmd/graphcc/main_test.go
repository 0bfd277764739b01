package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"graphcc/control"
	"graphcc/metrics"
	"graphcc/replay/bench"
	"graphcc/scenario"
	"graphcc/topo"
	"graphcc/trace"
	"graphcc/workload"
)

// tiny is a scenario that simulates in well under a second: 4 hosts, one
// spine, 1 ms of arrivals, 3:1 incasts every 250 us.
var tiny = []string{
	"--leaves", "2", "--spines", "1", "--hosts-per-leaf", "2", "--duration", "1ms",
	"--incast-period", "250us", "--incast-fanin", "3",
}

// execute runs the command tree on args in-process.
func execute(t *testing.T, ctx context.Context, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := newRoot(tinyLookup)
	var o, e bytes.Buffer
	cmd.SetOut(&o)
	cmd.SetErr(&e)
	cmd.SetArgs(args)
	err = cmd.ExecuteContext(ctx)
	return o.String(), e.String(), err
}

func run(t *testing.T, args ...string) string {
	t.Helper()
	out, stderr, err := execute(t, context.Background(), args...)
	if err != nil {
		t.Fatalf("graphcc %s: %v\nstderr: %s", strings.Join(args, " "), err, stderr)
	}
	return out
}

func args(base []string, more ...string) []string {
	return append(append([]string{}, base...), more...)
}

func readSummary(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

func TestGenThenSimFlows(t *testing.T) {
	dir := t.TempDir()
	flowsPath := filepath.Join(dir, "flow.txt")
	topoPath := filepath.Join(dir, "topology.txt")
	out := run(t, args(append([]string{"gen"}, tiny...), "--flows-out", flowsPath, "--topo-out", topoPath)...)
	if !strings.HasPrefix(out, "wrote ") || !strings.Contains(out, "offered load") {
		t.Errorf("gen printed %q", out)
	}

	// The trace parses on the fabric it was generated for.
	f, err := topo.Clos(topo.ClosConfig{Leaves: 2, Spines: 1, HostsPerLeaf: 2,
		HostRate: 25 * topo.Gbps, FabricRate: 100 * topo.Gbps, LinkDelay: topo.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.Open(flowsPath)
	if err != nil {
		t.Fatal(err)
	}
	flows, err := trace.ReadFlows(file, flowsPath, f)
	file.Close()
	if err != nil {
		t.Fatal(err)
	}
	incast := 0
	for _, fl := range flows {
		if fl.Incast() {
			incast++
		}
	}
	if len(flows) == 0 || incast != 3*3 {
		t.Fatalf("gen wrote %d flows, %d incast; want some, 9 incast", len(flows), incast)
	}

	// Generated in sim, replayed from the file on the Clos and on the
	// written topology: the same run.
	generated := filepath.Join(dir, "generated.json")
	run(t, args(append([]string{"sim"}, tiny...), "--summary-out", generated)...)
	want := readSummary(t, generated)
	if want["flows"] != float64(len(flows)) {
		t.Errorf("sim generated %v flows, gen wrote %d", want["flows"], len(flows))
	}
	for name, extra := range map[string][]string{
		"clos": {"--leaves", "2", "--spines", "1", "--hosts-per-leaf", "2"},
		"topo": {"--topo", topoPath},
	} {
		path := filepath.Join(dir, name+".json")
		run(t, args(append([]string{"sim", "--flows", flowsPath}, extra...), "--summary-out", path)...)
		got := readSummary(t, path)
		for _, k := range []string{"flows", "completed", "events", "slowdown"} {
			g, _ := json.Marshal(got[k])
			w, _ := json.Marshal(want[k])
			if !bytes.Equal(g, w) {
				t.Errorf("sim --flows (%s): %s = %s, generated run had %s", name, k, g, w)
			}
		}
	}
}

func TestSimOutputs(t *testing.T) {
	dir := t.TempDir()
	sum := filepath.Join(dir, "summary.json")
	fct := filepath.Join(dir, "fct.txt")
	telemetry := filepath.Join(dir, "trace.csv")
	out := run(t, args(append([]string{"sim"}, tiny...), "--summary-out", sum, "--fct-out", fct, "--trace-out", telemetry)...)
	for _, want := range []string{"slowdown", "background", "incast", "events", "peak rss"} {
		if !strings.Contains(out, want) {
			t.Errorf("sim output lacks %q:\n%s", want, out)
		}
	}

	m := readSummary(t, sum)
	for _, k := range []string{"flows", "completed", "slowdown", "slowdown_by_size", "slowdown_incast",
		"slowdown_background", "throughput_gbps_mean", "queue_bytes_mean", "queue_bytes_p99", "pfc_pauses",
		"ecn_marked_packets", "events", "sim_seconds", "wall_seconds", "peak_rss_bytes"} {
		if _, ok := m[k]; !ok {
			t.Errorf("summary lacks %q", k)
		}
	}
	sd, _ := m["slowdown"].(map[string]any)
	for _, k := range []string{"mean", "p50", "p95", "p99"} {
		if _, ok := sd[k]; !ok {
			t.Errorf("summary slowdown lacks %q: %v", k, m["slowdown"])
		}
	}
	if m["completed"] != m["flows"] || m["flows"] == float64(0) {
		t.Errorf("completed %v of %v flows", m["completed"], m["flows"])
	}
	if _, ok := m["slowdown_by_phase"]; ok || strings.Contains(out, "phase") {
		t.Errorf("a run without phases has them: %v\n%s", m["slowdown_by_phase"], out)
	}

	file, err := os.Open(fct)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := trace.ReadFCT(file, fct)
	file.Close()
	if err != nil {
		t.Fatal(err)
	}
	if float64(len(recs)) != m["completed"] {
		t.Errorf("fct.txt has %d records, summary says %v completed", len(recs), m["completed"])
	}

	data, err := os.ReadFile(telemetry)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if lines[0] != control.TraceHeader || len(lines) < 2 {
		t.Errorf("trace starts %q and has %d lines", lines[0], len(lines))
	}
}

func TestSimUntil(t *testing.T) {
	dir := t.TempDir()
	sum := filepath.Join(dir, "summary.json")
	run(t, args(append([]string{"sim"}, tiny...), "--until", "50us", "--summary-out", sum)...)
	m := readSummary(t, sum)
	if s := m["sim_seconds"].(float64); s > 50e-6 {
		t.Errorf("--until 50us simulated %v s", s)
	}
	if c, f := m["completed"].(float64), m["flows"].(float64); c >= f {
		t.Errorf("--until 50us completed %v of %v flows", c, f)
	}
}

func TestBadFlags(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-topology.txt")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "--load", "2"}, "--load: 2 not in (0, 1]"},
		{[]string{"gen", "--flows-out", filepath.Join(dir, "x"), "--load", "0"}, "--load: 0 not in"},
		{[]string{"sim", "--policy", "foo"}, `--policy foo: unknown ECN policy "foo" (have: static, edge, react, hostreact, sched, tuned, graphcc, acc, floor, ideal)`},
		{[]string{"sim", "--ecn", "foo"}, `--ecn foo: unknown ECN policy "foo" (have: static, edge, react, hostreact, sched, tuned, graphcc, acc, floor, ideal)`}, // the old name
		{[]string{"sim", "--kmin-kb", "500", "--kmax-kb", "100"}, "--kmin-kb 500 --kmax-kb 100"},
		{[]string{"sim", "--pmax", "1.5"}, "--pmax 1.5"},
		{[]string{"sim", "--kmin-kb", "1e16", "--kmax-kb", "1e16"}, "--kmin-kb 1e+16: must be a number of KB in [0, 1e9]"},
		{[]string{"sim", "--kmax-kb", "Inf"}, "--kmax-kb +Inf: must be a number of KB in [0, 1e9]"},
		{[]string{"sim", "--topo", missing}, missing},
		{[]string{"sim", "--flows", missing}, missing},
		{[]string{"gen"}, "--flows-out: required"},
		{[]string{"sim", "--duration", "0"}, "--duration 0"},
		{[]string{"sim", "--duration", "5"}, "--duration 5"},
		{[]string{"sim", "--host-rate", "fast"}, "--host-rate fast"},
		{[]string{"sim", "--leaves", "0"}, "--leaves 0"},
		{[]string{"sim", "--buffer-mb", "-1"}, "--buffer-mb -1"},
		{[]string{"sim", "--buffer-mb", "1e20"}, "--buffer-mb 1e+20: must be positive and at most 4e+12 MiB"},
		{[]string{"sim", "--leaves", "1", "--hosts-per-leaf", "1", "--no-incast"}, "--leaves/--hosts-per-leaf: the fabric has 1 host; traffic needs at least 2"},
		{[]string{"sim", "--fail", "leaf0-spine1,spine1-leaf0"}, "--fail leaf0-spine1,spine1-leaf0: fail links: link leaf0-spine1 is named twice"},
		{[]string{"sim", "--no-incast", "--incast-period", "1ms"}, "--no-incast and --incast-period: choose one"},
		{[]string{"gen", "--flows-out", filepath.Join(dir, "x"), "--no-incast", "--incast-fanin", "2"}, "--no-incast and --incast-fanin: choose one"},
		{[]string{"gen", "--flows-out", ""}, "--flows-out: required"},
		{[]string{"gen", "--flows-out", filepath.Join(dir, "x"), "--scenario", "day", "--load", "0.5"}, "--scenario sets the fabric and traffic: drop --load"},
		{[]string{"gen", "--flows-out", filepath.Join(dir, "x"), "--scenario", "nite"}, `--scenario: unknown scenario "nite"`},
		{[]string{"gen", "--flows-out", filepath.Join(dir, "x"), "--scenario-file", missing}, "--scenario-file: scenarios: open " + missing},
		{[]string{"gen", "--flows-out", filepath.Join(dir, "x"), "--incast-size", "2000000000000000"}, "--incast-size: 2000000000000000 bytes, want > 0 and at most 1125899906842624 (1 PiB)"},
		{[]string{"sim", "--incast-period", "1ns"}, "--incast-period: 25000000 incasts of 16 flows in 25ms: more than a trace may hold (20000000 flows)"},
		{[]string{"sim", "--dcqcn-min-rate-mbps", "25001"}, "--dcqcn-min-rate-mbps 25001: above host h0's line rate 25Gbps"},
		{[]string{"sim", "--leaves", "2", "--spines", "1", "--hosts-per-leaf", "2"}, "--incast-fanin: 16 senders, but the fabric has only 3 other hosts per receiver (lower it, or use --no-incast)"},
		{[]string{"sim", "--workload", filepath.Join(dir, "nope.cdf")}, "--workload"},
		{[]string{"sim", "--fail", "leaf0-spine9"}, "--fail leaf0-spine9"},
		{[]string{"sim", "--spines", "1", "--fail-random", "1"}, "--fail-random 1"},
		{[]string{"sim", "--window", "-2"}, "--window -2"},
		{[]string{"sim", "--interval", "1ns"}, "--interval 1ns: must be at least 1us"},
		{[]string{"sim", "--flows", missing, "--fct-out", missing}, "it is the input --flows " + missing},
		{[]string{"sim", "--fct-out", filepath.Join(dir, "o"), "--summary-out", filepath.Join(dir, ".", "o")}, "two outputs in one file"},
		{[]string{"gen", "--flows-out", filepath.Join(dir, "a"), "--topo-out", filepath.Join(dir, "a")}, "--flows-out " + filepath.Join(dir, "a") + " and --topo-out"},
		{[]string{"sim", "--dcqcn-g", "0"}, "--dcqcn-g 0"},
		{[]string{"sim", "--dcqcn-ai-mbps", "-1"}, "--dcqcn-ai-mbps -1"},
		{[]string{"sim", "--dcqcn-rp-timer", "4us"}, "--dcqcn-rp-timer 4us"},
		{[]string{"sim", "--interval", "0"}, "--interval 0"},
		{[]string{"sim", "--until", "soon"}, "--until soon"},
		{[]string{"sim", "--fct-out", filepath.Join(dir, "no-dir", "fct.txt")}, "--fct-out"},
		{[]string{"bench", "--runs", "0"}, "--runs 0"},
		{[]string{"bench", "--sweep", "--load", "0.5"}, "--load"},
		{[]string{"--log-level", "loud", "version"}, "--log-level loud"},
		{[]string{"sim", "--load", "0.6x"}, `--load: "0.6x" is not a number`},
		{[]string{"sim", "--leaves", "1e3"}, `--leaves: "1e3" is not a whole number`},
		{[]string{"sim", "--seed", "-1"}, `--seed: "-1" is not a whole number, 0 or more`},
		{[]string{"sim", "--no-pfc=maybe"}, `--no-pfc: "maybe" is not true or false`},
		{[]string{"sim", "--leaves", "99999999999999999999"}, `--leaves: "99999999999999999999" is out of range`},
		{[]string{"train", "--episodes", "four"}, `--episodes: "four" is not a whole number`},
		{[]string{"sim", "--fail-random"}, "flag needs an argument: --fail-random"},
	} {
		_, _, err := execute(t, context.Background(), tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("graphcc %s: error %v, want one containing %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("failed commands left files: %v", entries)
	}
}

func TestOutputsAtomic(t *testing.T) {
	dir := t.TempDir()
	sum := filepath.Join(dir, "summary.json")
	fct := filepath.Join(dir, "fct.txt")
	trace := filepath.Join(dir, "trace.csv")
	if err := os.WriteFile(sum, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A run interrupted (as by Ctrl-C) fails and writes nothing: the trace
	// streamed into a temporary file that is removed, and the other outputs
	// are never started.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := execute(t, ctx, args(append([]string{"sim"}, tiny...), "--summary-out", sum, "--fct-out", fct, "--trace-out", trace)...)
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("cancelled sim: error %v, want interrupted", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "summary.json" {
		t.Errorf("failed sim left %v, want only the old summary.json", entries)
	}
	if data, _ := os.ReadFile(sum); string(data) != "old\n" {
		t.Errorf("failed sim changed summary.json to %q", data)
	}

	// A gen that fails leaves no trace behind either.
	out := filepath.Join(dir, "flow.txt")
	if _, _, err := execute(t, context.Background(), args(append([]string{"gen"}, tiny...), "--flows-out", out, "--incast-fanin", "9")...); err == nil {
		t.Fatal("gen --incast-fanin 9 on 4 hosts succeeded")
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("failed gen left %s: %v", out, err)
	}
}

func TestECNFlagsScale(t *testing.T) {
	f, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	h := defaultHW()
	fs := pflag.NewFlagSet("sim", pflag.ContinueOnError)
	h.add(fs, 0)
	if ecn, err := h.ecnSettings(fs, f); err != nil || ecn != nil {
		t.Fatalf("no ECN flags: settings %v, %v; want nil (the simulator's Alibaba default)", ecn, err)
	}
	if err := fs.Parse([]string{"--kmin-kb", "10", "--kmax-kb", "50", "--pmax", "0.5"}); err != nil {
		t.Fatal(err)
	}
	ecn, err := h.ecnSettings(fs, f)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range f.Ports {
		want := control.Alibaba(p.Rate)
		if f.Nodes[p.Src].Switch {
			scale := p.Rate / (25 * topo.Gbps)
			want = control.ECN{KMin: 10_000 * scale, KMax: 50_000 * scale, PMax: 0.5}
		}
		if ecn[i] != want {
			t.Errorf("port %d (%d bps, switch %v): %v, want %v", i, p.Rate, f.Nodes[p.Src].Switch, ecn[i], want)
		}
	}
}

func TestBenchTiny(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bench.json")
	out := run(t, "bench", "--runs", "2", "--leaves", "2", "--spines", "1", "--hosts-per-leaf", "2",
		"--duration", "1ms", "--json", path)
	for _, want := range []string{"events/s", "sim/wall", "peak RSS", "data packets", "median"} {
		if !strings.Contains(out, want) {
			t.Errorf("bench output lacks %q:\n%s", want, out)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep bench.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) != 1 || len(rep.Cases[0].Runs) != 2 || rep.Cases[0].Events == 0 || rep.Cases[0].Flows == 0 {
		t.Errorf("bench JSON: %s", data)
	}
	if strings.Contains(rep.Cases[0].Traffic, "incasts of") {
		t.Errorf("bench traffic has incasts: %s", rep.Cases[0].Traffic)
	}
}

func TestVersion(t *testing.T) {
	if out := run(t, "version"); !strings.HasPrefix(out, "graphcc ") {
		t.Errorf("version printed %q", out)
	}
}

// TestOutputsReported: commands name the files they wrote.
func TestOutputsReported(t *testing.T) {
	var buf bytes.Buffer
	var o outputs
	o.report(&buf)
	o.add("a.fct")
	o.add("b.json")
	o.report(&buf)
	if want := "graphcc: wrote a.fct, b.json\n"; buf.String() != want {
		t.Errorf("outputs reported %q, want %q", buf.String(), want)
	}
}

// TestECNFlagsHidden checks that train and eval, whose policies set the
// thresholds, do not take the ECN flags (omitECN), and that sim does.
func TestECNFlagsHidden(t *testing.T) {
	for _, tc := range []struct {
		cmd   string
		shown bool
	}{{"sim", true}, {"train", false}, {"eval", false}} {
		out, _, err := execute(t, context.Background(), tc.cmd, "--help")
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(out, "--kmin-kb"); got != tc.shown {
			t.Errorf("%s --help shows --kmin-kb: %v, want %v", tc.cmd, got, tc.shown)
		}
	}
}

// TestOldPolicyFlags: the old --ecn of sim and testbed run still works, is
// hidden from the help, and says what replaced it.
func TestOldPolicyFlags(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.fct"), filepath.Join(dir, "b.fct")
	tiny := []string{"sim", "--leaves", "2", "--spines", "1", "--hosts-per-leaf", "2", "--duration", "1ms", "--incast-fanin", "3"}
	run(t, args(tiny, "--policy", "static:10,40,0.2", "--fct-out", a)...)
	// cobra prints the notice with Print: on stderr, or on the output a
	// test sets
	stdout, stderr, err := execute(t, t.Context(), args(tiny, "--ecn", "static:10,40,0.2", "--fct-out", b)...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout+stderr, "--ecn has been deprecated, use --policy") {
		t.Errorf("sim --ecn: output %q does not say it is deprecated", stdout+stderr)
	}
	fa, _ := os.ReadFile(a)
	fb, _ := os.ReadFile(b)
	if len(fa) == 0 || !bytes.Equal(fa, fb) {
		t.Error("sim --ecn and --policy ran differently")
	}
	for _, c := range [][]string{{"sim"}, {"testbed", "run"}} {
		help, _, err := execute(t, t.Context(), append(c, "--help")...)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(help, "--ecn string") || !strings.Contains(help, "Policies (") {
			t.Errorf("%v --help shows --ecn, or lists no policies:\n%s", c, help)
		}
	}
	_, _, err = execute(t, t.Context(), "testbed", "run", "--ecn", "static", "--policies", "graphcc")
	if err == nil || !strings.Contains(err.Error(), "--ecn and --policies: choose one") {
		t.Errorf("testbed run --ecn --policies: %v", err)
	}
}

// TestHelpExamples: every command has examples in its help, and every
// example line names the command's own path and parses with its flags
// (the values included), so the examples do not rot.
func TestHelpExamples(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			walk(sub)
		}
		if c == c.Root() {
			return
		}
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s: no examples in its help", c.CommandPath())
			return
		}
		for _, line := range strings.Split(c.Example, "\n") {
			line, _, _ = strings.Cut(line, "#")
			words := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "sudo "))
			path := strings.Fields(c.CommandPath())
			if len(words) < len(path) || !slices.Equal(words[:len(path)], path) {
				t.Errorf("%s: example %q does not run %s", c.CommandPath(), line, c.CommandPath())
				continue
			}
			// an example of a group runs one of its subcommands
			sub, rest := c, words[len(path):]
			for len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
				next := slices.IndexFunc(sub.Commands(), func(x *cobra.Command) bool { return x.Name() == rest[0] })
				if next < 0 {
					break
				}
				sub, rest = sub.Commands()[next], rest[1:]
			}
			if err := sub.ParseFlags(rest); err != nil {
				t.Errorf("%s: example %q: %v", c.CommandPath(), line, err)
			}
		}
	}
	walk(newRootCmd())
}

// tinyDayYAML is a scenario file of one tiny phased scenario, three
// phases over 1 ms of arrivals on 4 hosts.
const tinyDayYAML = `scenarios:
  - name: tiny-day
    clos: {leaves: 2, spines: 1, hosts_per_leaf: 2}
    incast: {fanin: 3, period: 250us}
    phases:
      - {duration: 500us, load: 0.3, incast: none}
      - {duration: 300us, workload: googlerpc, load: 0.8}
      - {duration: 200us, workload: websearch}
`

// TestGenPhasedScenario: gen --scenario writes the very trace of a phased
// scenario at --seed, as eval builds it, and says how many phases it has.
func TestGenPhasedScenario(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "day.yaml")
	if err := os.WriteFile(file, []byte(tinyDayYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "flow.txt")
	printed := run(t, "gen", "--scenario-file", file, "--seed", "2001", "--flows-out", out)
	if !strings.Contains(printed, "over 1ms in 3 phases") {
		t.Errorf("gen printed %q", printed)
	}
	set, err := scenario.LoadSet(file)
	if err != nil {
		t.Fatal(err)
	}
	f, want, err := set.File[0].Build(2001)
	if err != nil {
		t.Fatal(err)
	}
	r, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := trace.ReadFlows(r, out, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("gen wrote %d flows, the scenario has %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("flow %d: gen wrote %+v, the scenario has %+v", i, got[i], want[i])
		}
	}
}

// TestSimPhasedSummary: sim of a phased --scenario splits its summary's
// flows by the phase they start in, as counting the FCT records' starts
// does, in the table and in --summary-out.
func TestSimPhasedSummary(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "day.yaml")
	if err := os.WriteFile(file, []byte(tinyDayYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, fct := filepath.Join(dir, "s.json"), filepath.Join(dir, "fct.txt")
	out := run(t, "sim", "--scenario-file", file, "--seed", "2001", "--summary-out", sum, "--fct-out", fct)
	data, err := os.ReadFile(sum)
	if err != nil {
		t.Fatal(err)
	}
	var s metrics.Summary
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	r, err := os.Open(fct)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	recs, err := trace.ReadFCT(r, fct)
	if err != nil {
		t.Fatal(err)
	}
	bounds := []int64{0, 500 * topo.Microsecond, 800 * topo.Microsecond}
	counts := make([]int, len(bounds))
	for _, rec := range recs {
		at := rec.Start - workload.DefaultStart
		i := len(bounds) - 1
		for at < bounds[i] && i > 0 {
			i--
		}
		counts[i]++
	}
	if len(s.Phases) != 3 || s.Completed != len(recs) {
		t.Fatalf("%d phases in the summary of %d flows (%d records)", len(s.Phases), s.Completed, len(recs))
	}
	for i, ph := range s.Phases {
		// WebSearch's 200 us at this seed start no flow: a phase without
		if ph.StartMs != float64(bounds[i])/float64(topo.Millisecond) || ph.Slowdown.Count != counts[i] || (counts[i] == 0) != (i == 2) {
			t.Errorf("phase %d: %+v, want %d flows from %d ps", i, ph, counts[i], bounds[i])
		}
	}
	for _, want := range []string{fmt.Sprintf(`phase from 0 ms +%d `, counts[0]), fmt.Sprintf(`phase from 0\.5 ms +%d `, counts[1]), `phase from 0\.8 ms +0 +– +– +– +–\n`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("sim printed no %q:\n%s", want, out)
		}
	}
}

// TestRenamedFlags: a flag's former name still sets it, says what
// replaced it, and stays out of the help: --out is a directory (eval,
// merge) wherever it is not such an alias.
func TestRenamedFlags(t *testing.T) {
	root := newRoot(tinyLookup)
	for _, tc := range []struct{ cmd, old, now string }{
		{"gen", "out", "flows-out"}, {"train", "out", "model-out"}, {"tune", "out", "json"}, {"sim", "ecn", "policy"},
	} {
		c, _, err := root.Find([]string{tc.cmd})
		if err != nil {
			t.Fatal(err)
		}
		fs := c.Flags()
		old, now := fs.Lookup(tc.old), fs.Lookup(tc.now)
		if old == nil || now == nil || old.Deprecated == "" || !old.Hidden {
			t.Fatalf("%s --%s: not a deprecated alias of --%s", tc.cmd, tc.old, tc.now)
		}
		if err := fs.Set(tc.old, "x.file"); err != nil {
			t.Fatal(err)
		}
		if now.Value.String() != "x.file" {
			t.Errorf("%s --%s x.file set --%s to %q", tc.cmd, tc.old, tc.now, now.Value.String())
		}
	}
	for _, cmd := range []string{"eval", "merge"} {
		c, _, _ := root.Find([]string{cmd})
		if f := c.Flags().Lookup("out"); f == nil || f.Deprecated != "" || !strings.Contains(f.Usage, "directory") {
			t.Errorf("%s --out is not a directory", cmd)
		}
	}
}
