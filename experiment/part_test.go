package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/internal/testfabric"
	"graphcc/metrics"
	"graphcc/policy"
	"graphcc/replay"
	"graphcc/scenario"
	"graphcc/topo"
	"graphcc/trace"
	"graphcc/workload"
)

// shardEval is an evaluation with everything a report can hold: two
// scenarios (the second phased: its report has a table by phase), three
// policies (ideal among them, which has no telemetry), three seeds
// (intervals), rewards and a yardstick with its note.
func shardEval(t testing.TB) Config {
	t.Helper()
	c := tinyEval()
	other := testfabric.TinyScenario()
	other.Name = "tiny-busy-phased"
	other.Gen.Phases = []workload.Phase{
		{Duration: topo.Millisecond, Workload: other.Gen.Workload, Load: 0.8, Incast: other.Gen.Incast},
		{Duration: 500 * topo.Microsecond, Workload: must(workload.Builtin("googlerpc")), Load: 0.6},
		{Duration: 500 * topo.Microsecond, Workload: must(workload.Builtin("websearch")), Load: 0.8},
	}
	other.Gen.Duration = workload.PhasesDuration(other.Gen.Phases)
	c.Scenarios = append(c.Scenarios, other)
	ideal, err := policy.Parse(context.Background(), "ideal", policy.Env{})
	if err != nil {
		t.Fatal(err)
	}
	c.Policies = append(c.Policies, ideal)
	c.Seeds = []uint64{1, 2, 3}
	c.Yardsticks = []string{"static", "low"}
	c.YardstickNote = "Yardstick low: a note the parts carry to the merged report."
	c.Reference = "low"
	if c.Rewards, err = ParseRewards(DefaultRewards() + ",linear:25"); err != nil {
		t.Fatal(err)
	}
	c.ShowRewards = true
	return c
}

// partFile is a part and the name of its file.
type partFile struct {
	name string
	*Part
}

// open writes f's file and opens it.
func (f partFile) open(t testing.TB) *PartReader {
	t.Helper()
	var b bytes.Buffer
	if err := WritePart(&b, f.Part); err != nil {
		t.Fatal(err)
	}
	pr, err := OpenPart(&b, f.name)
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

// openAll opens the files of parts.
func openAll(t testing.TB, parts ...partFile) []*PartReader {
	t.Helper()
	var out []*PartReader
	for _, p := range parts {
		out = append(out, p.open(t))
	}
	return out
}

// evalParts runs every shard of c's n and returns their parts, by build
// "test", named part-I.json.
func evalParts(t testing.TB, c Config, n int) []partFile {
	t.Helper()
	var parts []partFile
	for i := range n {
		p, err := EvaluatePart(context.Background(), c, Shard{i, n})
		if err != nil {
			t.Fatal(err)
		}
		p.Build = "test"
		parts = append(parts, partFile{fmt.Sprintf("part-%d.json", i), p})
	}
	return parts
}

// firstDiff shows where a and b first differ.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-200)
	return fmt.Sprintf("at byte %d of %d/%d:\n got …%s\nwant …%s", i, len(a), len(b), a[lo:min(len(a), i+200)], b[lo:min(len(b), i+200)])
}

// TestPartRoundTrip: a part read from its file is the part written, and
// writes the same bytes again.
func TestPartRoundTrip(t *testing.T) {
	c := shardEval(t)
	c.Scenarios, c.Seeds = c.Scenarios[:1], c.Seeds[:2]
	p := evalParts(t, c, 2)[1]
	if len(p.Units) != 3 || p.Units[0].Unit != 1 || len(p.Units[0].FCT) == 0 || p.Units[0].Rewards == nil {
		t.Fatalf("part of shard 1/2: %d units, the first %d with %d FCT records and rewards %v", len(p.Units), p.Units[0].Unit, len(p.Units[0].FCT), p.Units[0].Rewards)
	}
	var first, second bytes.Buffer
	if err := WritePart(&first, p.Part); err != nil {
		t.Fatal(err)
	}
	back, err := readPart(bytes.NewReader(first.Bytes()), "p.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := WritePart(&second, back); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Bytes(), second.Bytes()) {
		t.Errorf("a part read back writes other bytes:\n%s", firstDiff(second.Bytes(), first.Bytes()))
	}
	for i, u := range back.Units {
		w := p.Units[i]
		u.Rewards, w.Rewards = nil, nil // NaN equals nothing; the bytes above compare them
		if !reflect.DeepEqual(u, w) {
			t.Errorf("unit %d read back:\n got %+v\nwant %+v", i, u.Summary, w.Summary)
		}
	}
	if back.Fingerprint != p.Fingerprint || back.Shard != p.Shard || back.Build != "test" || back.Kind != PartEval {
		t.Errorf("read back as %+v", back)
	}
}

// TestPartFingerprint: everything that changes results changes the
// fingerprint; what does not (workers, progress) does not.
func TestPartFingerprint(t *testing.T) {
	base := tinyEval()
	fp := func(c Config) string {
		pc, err := newPartConfig(c)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Fingerprint(&pc, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	want := fp(base)
	same := base
	same.Workers, same.Progress = 7, func(int, int) {}
	if got := fp(same); got != want {
		t.Errorf("workers and progress changed the fingerprint")
	}
	same.Params, same.Interval = replay.DefaultParams(), control.DefaultInterval
	if got := fp(same); got != want {
		t.Errorf("the defaults given changed the fingerprint")
	}
	for name, change := range map[string]func(c *Config){
		"seeds":     func(c *Config) { c.Seeds = []uint64{1, 3} },
		"scenario":  func(c *Config) { c.Scenarios[0].Gen.Load = 0.5 },
		"policy":    func(c *Config) { c.Policies = c.Policies[:1] },
		"reference": func(c *Config) { c.Reference = "low" },
		"params":    func(c *Config) { c.Params = replay.DefaultParams(); c.Params.PFC = false },
		"interval":  func(c *Config) { c.Interval = 2 * control.DefaultInterval },
		"rewards":   func(c *Config) { c.Rewards, _ = ParseRewards("linear:25") },
		"inputs": func(c *Config) {
			c.Policies[1].Inputs = func(scenario.Scenario) (string, error) { return "sha256:00", nil }
		},
	} {
		c := tinyEval()
		change(&c)
		if fp(c) == want {
			t.Errorf("changing the %s kept the fingerprint", name)
		}
	}
}

// TestMergeRefusals: parts that do not make one evaluation are refused,
// naming the file at fault.
func TestMergeRefusals(t *testing.T) {
	c := tinyEval()
	two := evalParts(t, c, 2)
	three := evalParts(t, c, 3)
	other := tinyEval()
	other.Seeds = []uint64{1, 3}
	otherParts := evalParts(t, other, 2)
	rebuilt := *two[1].Part
	rebuilt.Build = "graphcc v9"
	for _, tc := range []struct {
		name  string
		parts []partFile
		want  string
	}{
		{"none", nil, "no part files"},
		{"missing", two[:1], "shard 1 of 2 missing"},
		{"duplicated", []partFile{two[0], two[1], {"copy.json", two[1].Part}}, "copy.json: shard 1/2 again: part-1.json is that shard too"},
		{"another N", []partFile{two[0], {"p3.json", three[1].Part}}, "p3.json: shard 1/3, a part of 3 shards, but part-0.json is of 2"},
		{"other flags", []partFile{two[0], {"seeds.json", otherParts[1].Part}}, "seeds.json: a part of another evaluation than part-0.json: its seeds differ"},
		{"another build", []partFile{two[0], {"v9.json", &rebuilt}}, "v9.json: written by another graphcc build (graphcc v9), not this one (test)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Merge(openAll(t, tc.parts...), "test")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Merge: %v, want an error containing %q", err, tc.want)
			}
		})
	}
	if _, err := Merge(openAll(t, two...), "test"); err != nil {
		t.Errorf("the two parts: %v", err)
	}
}

// TestReadPartRefusals: files that are not parts, or damaged ones, are
// refused naming the file.
func TestReadPartRefusals(t *testing.T) {
	c := tinyEval()
	p := evalParts(t, c, 2)[0]
	var good bytes.Buffer
	if err := WritePart(&good, p.Part); err != nil {
		t.Fatal(err)
	}
	cut := *p.Part
	cut.Units = cut.Units[:1]
	var short bytes.Buffer
	if err := WritePart(&short, &cut); err != nil {
		t.Fatal(err)
	}
	edit := func(old, new string) string {
		s := good.String()
		if !strings.Contains(s, old) {
			t.Fatalf("part file lacks %q", old)
		}
		return strings.Replace(s, old, new, 1)
	}
	// the head of eval's JSON report (package report writes it whole)
	report := "{\n  \"reference\": \"static\",\n  \"policies\": [\n    \"static\",\n    \"low\"\n  ]\n}\n"
	for _, tc := range []struct {
		name, file, want string
	}{
		{"eval's report", report, "f.json: not a graphcc part file"},
		{"not json", "hello", "f.json: not a graphcc part file"},
		{"empty", "", "f.json: not a graphcc part file"},
		{"another format", edit(`"format":"graphcc-part/1"`, `"format":"graphcc-part/2"`), `f.json: not a graphcc part file: format "graphcc-part/2"`},
		{"truncated", good.String()[:good.Len()/2], "f.json: damaged part file"},
		{"edited config", edit(`"seeds":[1,2]`, `"seeds":[1,5]`), "f.json: config does not match its fingerprint"},
		{"seed twice", edit(`"seeds":[1,2]`, `"seeds":[1,1]`), "f.json: config: seed 1 given twice"},
		{"shard out of range", edit(`"shard":0`, `"shard":2`), "f.json: shard 2 of 2"},
		{"another kind", edit(`"kind":"eval"`, `"kind":"sim"`), `f.json: kind "sim"`},
		{"unit moved", edit(`"unit":0,`, `"unit":1,`), "f.json: unit 1: in the place of unit 0"},
		{"unit of another policy", edit(`"policy":"static"`, `"policy":"low"`), "f.json: unit 0: runs low on tiny at seed 1, but the config's unit 0 is static"},
		{"unknown field", edit(`"kind":"eval"`, `"kind":"eval","extra":1`), `f.json: unknown field "extra"`},
		{"field twice", edit(`"kind":"eval"`, `"kind":"eval","kind":"eval"`), `f.json: field "kind" twice`},
		{"data after it", good.String() + "{}", "f.json: damaged part file: data after its object"},
		{"a unit short", short.String(), "f.json: 1 units, but shard 0/2 of its evaluation has 2"},
		{"short FCT row", edit(`"fct":[[`, `"fct":[[1,`), "f.json: damaged part file: unit 0: FCT row 0: want 8 whole numbers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readPart(strings.NewReader(tc.file), "f.json")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ReadPart: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// FuzzReadPart: any bytes are read or refused without a panic, and a
// part read writes bytes that read back to the same part.
func FuzzReadPart(f *testing.F) {
	// A part made by hand: the simulator, instrumented for fuzzing, would
	// take long to make one.
	c := tinyEval()
	c.Seeds = c.Seeds[:1]
	c.Rewards, _ = ParseRewards("linear:25")
	pc, err := newPartConfig(c)
	if err != nil {
		f.Fatal(err)
	}
	p := &Part{Kind: PartEval, Build: "test", Shard: Shard{1, 2}, Config: pc, Units: []PartUnit{{
		Unit: 1, Scenario: "tiny", Policy: "low", Seed: 1, Flows: 3, FailedLinks: []string{"leaf0-spine0"},
		Summary: metrics.Summary{Flows: 3, Completed: 2, Slowdown: metrics.Stats{Count: 2, Mean: 1.5, P50: 1, P95: 2, P99: 2}, QueueBytesMean: 1e3},
		FCT: []trace.FCT{{Src: 0, Dst: 3, SPort: 10000, DPort: 100, Size: 1000, Start: 2e12, FCT: 9e6, Standalone: 8e6},
			{Src: 1, Dst: 2, SPort: 10001, DPort: 200, Size: 64000, Start: 2e12 + 5, FCT: 3e7, Standalone: 2e7}},
		Rewards: []float64{math.NaN()},
	}}}
	if p.Fingerprint, err = Fingerprint(&pc, nil); err != nil {
		f.Fatal(err)
	}
	var good bytes.Buffer
	if err := WritePart(&good, p); err != nil {
		f.Fatal(err)
	}
	f.Add(good.Bytes())
	// the whole evaluation in one part, which the fuzz test also merges
	whole := *p
	whole.Shard = Shard{0, 1}
	static := p.Units[0]
	static.Unit, static.Policy = 0, "static"
	whole.Units = []PartUnit{static, p.Units[0]}
	var wholeFile bytes.Buffer
	if err := WritePart(&wholeFile, &whole); err != nil {
		f.Fatal(err)
	}
	if _, err := Merge([]*PartReader{mustOpen(f, wholeFile.Bytes())}, "test"); err != nil {
		f.Fatal(err)
	}
	f.Add(wholeFile.Bytes())
	// a tune-grid part's search and runs are package tune's: here only JSON
	tune := &Part{Kind: PartTuneGrid, Build: "test", Shard: Shard{0, 2},
		Tune: json.RawMessage(`{"grid":[{"kmin_kb":2,"kmax_kb":16,"pmax":0.01},{"kmin_kb":4,"kmax_kb":32,"pmax":1}],"refine":0,"top":1,"dcqcn":false,"roles":false,"confirm_seeds":[3001]}`),
		Config: PartConfig{Scenarios: pc.Scenarios, Policies: []PartPolicy{{Name: "static:2,16,0.01"}, {Name: "static:4,32,1"}}, Seeds: []uint64{2001, 2002, 2003},
			Params: pc.Params, IntervalPs: pc.IntervalPs, Reference: "static:2,16,0.01"},
		Runs: json.RawMessage(`[{"config":0,"policy":"static:2,16,0.01","score":1.25,"loo":[1.2,1.3,1.25]}]`)}
	if tune.Fingerprint, err = Fingerprint(&tune.Config, tune.Tune); err != nil {
		f.Fatal(err)
	}
	var tuneFile bytes.Buffer
	if err := WritePart(&tuneFile, tune); err != nil {
		f.Fatal(err)
	}
	if _, err := readPart(bytes.NewReader(tuneFile.Bytes()), "t.json"); err != nil {
		f.Fatal(err)
	}
	f.Add(tuneFile.Bytes())
	f.Add([]byte(`{"format":"graphcc-part/1"}`))
	f.Add([]byte(`{"format":"graphcc-part/1","kind":"eval","shard":0,"shards":1,"config":{"scenarios":[{"name":"a"}],"policies":[{"name":"p"}],"seeds":[1],"reference":"p"},"units":[]}`))
	f.Add([]byte("{}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := readPart(bytes.NewReader(b), "f.json")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.json: ") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		var w1, w2 bytes.Buffer
		if err := WritePart(&w1, p); err != nil {
			t.Fatal(err)
		}
		p2, err := readPart(bytes.NewReader(w1.Bytes()), "f.json")
		if err != nil {
			t.Fatalf("a part read and written does not read back: %v", err)
		}
		if err := WritePart(&w2, p2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(w1.Bytes(), w2.Bytes()) {
			t.Fatalf("round trip changed the part")
		}
		// a whole evaluation merges into its report, or is refused naming
		// the file
		if p.Kind == PartEval && p.Shard.Count == 1 {
			if _, err := Merge([]*PartReader{mustOpen(t, w1.Bytes())}, p.Build); err != nil && !strings.Contains(err.Error(), "f.json: ") {
				t.Fatalf("merge error %q does not name the file", err)
			}
		}
	})
}

// mustOpen opens the part file b, named f.json.
func mustOpen(t testing.TB, b []byte) *PartReader {
	t.Helper()
	pr, err := OpenPart(bytes.NewReader(b), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

// readPart reads a part file whole (OpenPart, then every unit) and
// returns its part.
func readPart(r io.Reader, name string) (*Part, error) {
	pr, err := OpenPart(r, name)
	if err != nil {
		return nil, err
	}
	p := *pr.Part
	for {
		u, err := pr.Next()
		if err == io.EOF {
			return &p, nil
		}
		if err != nil {
			return nil, err
		}
		p.Units = append(p.Units, u)
	}
}
