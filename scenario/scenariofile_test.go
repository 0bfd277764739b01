package scenario

import (
	"cmp"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"graphcc/topo"
	"graphcc/workload"
)

const testScenarioFile = `# two scenarios of one's own
scenarios:
  - name: ws70-big
    description: WebSearch at 70 % on a larger Clos
    base: fb60
    workload: websearch
    load: 0.7
    duration: 5ms
    clos: {leaves: 8, spines: 4, hosts_per_leaf: 16, host_rate: 25Gbps, fabric_rate: 100Gbps, link_delay: 2us, buffer: 16MiB}
    fail: [leaf0-spine1, leaf3-spine2]
    fail_random: 1
  - name: mine.incast_32
    workload: tiny.cdf
    incast: {fanin: 32, size: 128KB}
    clos: {hosts_per_leaf: 12}
  - name: quiet
    incast: none
  - name: two-switches
    topology: {file: topo.txt, buffer: 8MiB}
    incast: {fanin: 2}
`

// testTopology is a fabric of two switches with two hosts each.
const testTopology = `6 2 5
4 5
0 4 25Gbps 0.001ms 0
1 4 25Gbps 0.001ms 0
2 5 25Gbps 0.001ms 0
3 5 25Gbps 0.001ms 0
4 5 100Gbps 0.001ms 0
`

func TestReadScenarios(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tiny.cdf"), []byte("1000 0\n1000 50\n20000 100\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "topo.txt"), []byte(testTopology), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "suite.yaml")
	if err := os.WriteFile(path, []byte(testScenarioFile), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("%d scenarios, want 4", len(got))
	}
	ws, mine, quiet, two := got[0], got[1], got[2], got[3]
	if two.Topology == nil || two.TopologyName != "topo.txt" || len(two.Topology.Hosts()) != 4 || two.Topology.Buffer != 8<<20 {
		t.Errorf("two-switches: topology %v named %q", two.Topology, two.TopologyName)
	}
	if d := two.Describe(); !strings.Contains(d, "topo.txt (4 hosts, 2 switches, 5 links)") {
		t.Errorf("two-switches described as %q", d)
	}
	wantClos := topo.ClosConfig{Leaves: 8, Spines: 4, HostsPerLeaf: 16, HostRate: 25 * topo.Gbps, FabricRate: 100 * topo.Gbps,
		LinkDelay: 2 * topo.Microsecond, Buffer: 16 << 20}
	switch {
	case ws.Name != "ws70-big" || ws.Description != "WebSearch at 70 % on a larger Clos":
		t.Errorf("first scenario %q: %q", ws.Name, ws.Description)
	case ws.Gen.Workload.Name != "websearch" && !strings.Contains(strings.ToLower(ws.Gen.Workload.Name), "websearch"):
		t.Errorf("workload %s, want websearch", ws.Gen.Workload.Name)
	case ws.Gen.Load != 0.7 || ws.Gen.Duration != 5*topo.Millisecond || ws.Gen.Incast.Period != 0:
		t.Errorf("traffic %+v (fb60's base: no incasts)", ws.Gen)
	case ws.Clos != wantClos:
		t.Errorf("clos %+v, want %+v", ws.Clos, wantClos)
	case strings.Join(ws.Fail, ",") != "leaf0-spine1,leaf3-spine2" || ws.FailRandom != 1:
		t.Errorf("failures %v and %d random", ws.Fail, ws.FailRandom)
	}
	// the second starts from the training scenario: its incast fields
	// default to its 16:1 incast's, its Clos to the GraphCC Clos
	def := Default()
	if mine.Gen.Incast != (workload.IncastConfig{Period: def.Gen.Incast.Period, FanIn: 32, Size: 128000}) {
		t.Errorf("incast %+v", mine.Gen.Incast)
	}
	wantMine := def.Clos
	wantMine.HostsPerLeaf = 12
	if mine.Clos != wantMine {
		t.Errorf("clos %+v, want %+v", mine.Clos, wantMine)
	}
	if mine.Gen.Load != def.Gen.Load || len(mine.Gen.Workload.Points) != 3 || mine.Gen.Workload.Points[2].Bytes != 20000 {
		t.Errorf("workload %+v, load %v", mine.Gen.Workload, mine.Gen.Load)
	}
	if quiet.Gen.Incast.Period != 0 || quiet.Description != "from suite.yaml" {
		t.Errorf("quiet: incast %+v, description %q", quiet.Gen.Incast, quiet.Description)
	}
	for _, s := range got {
		f, flows, err := s.Build(7)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if s.Topology != nil {
			if len(flows) == 0 || len(f.Hosts()) != 4 {
				t.Errorf("%s: %d flows on %d hosts", s.Name, len(flows), len(f.Hosts()))
			}
			continue
		}
		if len(flows) == 0 || len(f.Hosts()) != s.Clos.Leaves*s.Clos.HostsPerLeaf {
			t.Errorf("%s: %d flows on %d hosts", s.Name, len(flows), len(f.Hosts()))
		}
	}
}

func TestReadScenariosErrors(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"topo.txt": testTopology, "bad.txt": "6 2 5\n4 5\n0 4 25Gbps\n", "one.txt": "2 1 1\n1\n0 1 25Gbps 1us 0\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, text string
		want       string // in the error
	}{
		{"empty", "", "want a mapping"},
		{"second document", "scenarios:\n  - name: a\n---\nscenarios:\n  - name: b\n", "s.yaml:3: a second YAML document"},
		{"not yaml", "scenarios: [\n", "s.yaml"},
		{"other top field", "scenario:\n  - name: x\n", "s.yaml:1: scenario: unknown field"},
		{"no list", "scenarios: 3\n", "s.yaml:1: scenarios: want a list"},
		{"empty list", "scenarios: []\n", "no scenarios"},
		{"no name", "scenarios:\n  - load: 0.5\n", "s.yaml:2: name: missing"},
		{"built-in name", "scenarios:\n  - name: fb60\n", "s.yaml:2: name: fb60 is a built-in"},
		{"bad name", "scenarios:\n  - name: a/b\n", "s.yaml:2: name: \"a/b\""},
		{"all", "scenarios:\n  - name: all\n", "name: \"all\""},
		{"twice", "scenarios:\n  - name: a\n  - name: a\n", "s.yaml:3: name: a is already the name of the scenario at line 2"},
		{"field twice", "scenarios:\n  - name: a\n    load: 0.5\n    load: 0.6\n", "s.yaml:4: load: given twice"},
		{"unknown field", "scenarios:\n  - name: a\n    lod: 0.5\n", "s.yaml:3: lod: unknown field"},
		{"load range", "scenarios:\n  - name: a\n    load: 1.5\n", "s.yaml:3: load: 1.5 not in (0, 1]"},
		{"load word", "scenarios:\n  - name: a\n    load: high\n", "s.yaml:3: load: \"high\": want a number"},
		{"load nan", "scenarios:\n  - name: a\n    load: .nan\n", "load:"},
		{"duration unit", "scenarios:\n  - name: a\n    duration: 25\n", "s.yaml:3: duration: bad delay \"25\""},
		{"duration zero", "scenarios:\n  - name: a\n    duration: 0ms\n", "duration: 0ms: must be positive"},
		{"unknown base", "scenarios:\n  - name: a\n    base: fb61\n", "s.yaml:3: base: unknown scenario \"fb61\""},
		{"unknown workload", "scenarios:\n  - name: a\n    workload: nosuch\n", "s.yaml:3: workload: \"nosuch\" is neither a built-in workload"},
		{"rate unit", "scenarios:\n  - name: a\n    clos: {host_rate: 25GB}\n", "s.yaml:3: clos: host_rate: bad rate \"25GB\""},
		{"clos field", "scenarios:\n  - name: a\n    clos: {hosts: 4}\n", "s.yaml:3: clos: hosts: unknown field"},
		{"clos list", "scenarios:\n  - name: a\n    clos: [4]\n", "s.yaml:3: clos: want a mapping"},
		{"clos leaves", "scenarios:\n  - name: a\n    clos: {leaves: 0}\n", "s.yaml:2: scenario a: clos: leaves must be at least 1"},
		{"incast fanin", "scenarios:\n  - name: a\n    incast: {fanin: 0}\n", "s.yaml:3: incast: fanin: 0: want at least 1"},
		{"incast too wide", "scenarios:\n  - name: a\n    incast: {fanin: 30}\n", "s.yaml:3: incast: fanin: 30 senders, but the fabric has only 23 other hosts"},
		{"incast from base", "scenarios:\n  - name: a\n    clos: {leaves: 2, hosts_per_leaf: 2}\n", "s.yaml:2: incast: fanin: 16 senders, but the fabric has only 3 other hosts"},
		{"incast fanin in mapping", "scenarios:\n  - name: a\n    clos: {leaves: 2, hosts_per_leaf: 2}\n    incast:\n      size: 1KB\n", "s.yaml:4: incast: fanin: 16 senders"},
		{"incast fanin line", "scenarios:\n  - name: a\n    clos: {leaves: 2, hosts_per_leaf: 2}\n    incast:\n      size: 1KB\n      fanin: 5\n", "s.yaml:6: incast: fanin: 5 senders"},
		{"incast size", "scenarios:\n  - name: a\n    incast: {size: 1.5B}\n", "size: \"1.5B\": not a whole number"},
		{"incast word", "scenarios:\n  - name: a\n    incast: many\n", "incast: want none or a mapping"},
		{"buffer", "scenarios:\n  - name: a\n    clos: {buffer: -1MB}\n", "buffer: \"-1MB\": want between"},
		{"unknown link", "scenarios:\n  - name: a\n    fail: [leaf0-spine9]\n", "s.yaml:2: scenario a:"},
		{"disconnecting", "scenarios:\n  - name: a\n    fail: [leaf0-spine0, leaf0-spine1]\n", "s.yaml:2: scenario a:"},
		{"fail scalar", "scenarios:\n  - name: a\n    fail: leaf0-spine0\n", "s.yaml:3: fail: want a list"},
		{"fail_random", "scenarios:\n  - name: a\n    fail_random: 9\n", "s.yaml:2: scenario a: fail_random 9: cannot fail 9 of 8 switch-switch links"},
		{"incast count", "scenarios:\n  - name: a\n    incast: {period: 1ns}\n", "s.yaml:3: incast: period: 25000000 incasts of 16 flows in 25ms: more than a trace may hold (20000000 flows)"},
		{"flow count", "scenarios:\n  - name: a\n    duration: 100s\n", "s.yaml:3: duration: about 3.9e+07 flows expected (fb_hadoop at load 0.6 over 24 hosts for 100s, and the incasts): more than a trace may hold (20000000)"},
		{"one host", "scenarios:\n  - name: a\n    topology: one.txt\n    incast: none\n", "s.yaml:2: scenario a: the fabric has 1 host(s); traffic needs at least 2"},
		{"fail_random disconnects", "scenarios:\n  - name: a\n    fail_random: 5\n", "s.yaml:2: scenario a: fail_random 5: every set of 5 of the 8 switch-switch links disconnects a host pair"},
		{"fail_random negative", "scenarios:\n  - name: a\n    fail_random: -1\n", "s.yaml:3: fail_random: -1 is negative"},
		{"scenario scalar", "scenarios:\n  - a\n", "s.yaml:2: want a scenario"},
		{"no topology file", "scenarios:\n  - name: a\n    topology: none.txt\n", "s.yaml:3: topology: open"},
		{"topology field", "scenarios:\n  - name: a\n    topology: {path: t.txt}\n", "s.yaml:3: topology: path: unknown field"},
		{"topology and clos", "scenarios:\n  - name: a\n    clos: {leaves: 2}\n    topology: topo.txt\n", "s.yaml:2: topology: a scenario has a clos or a topology, not both"},
		{"bad topology", "scenarios:\n  - name: a\n    topology: bad.txt\n", "s.yaml:3: topology: "},
		{"phase load", "scenarios:\n  - name: a\n    phases:\n      - duration: 1ms\n      - {duration: 2ms, load: 1.3}\n", "s.yaml:5: phases[1].load: 1.3 not in (0, 1]"},
		{"phase load line", "scenarios:\n  - name: a\n    phases:\n      - duration: 1ms\n      - duration: 2ms\n        load: 1.3\n", "s.yaml:6: phases[1].load: 1.3 not in (0, 1]"},
		{"phase duration missing", "scenarios:\n  - name: a\n    phases:\n      - load: 0.5\n", "s.yaml:4: phases[0].duration: missing"},
		{"phase duration zero", "scenarios:\n  - name: a\n    phases:\n      - duration: 0ms\n", "s.yaml:4: phases[0].duration: 0ms: must be positive"},
		{"phase event", "scenarios:\n  - name: a\n    phases:\n      - duration: 1ms\n        event: {fail: leaf0-spine1, at: 0.5ms}\n", "s.yaml:5: phases[0].event: a phase's link events are a list: events: ["},
		{"events scalar", "scenarios:\n  - name: a\n    events: leaf0-spine1\n", "s.yaml:3: events: want a list of events"},
		{"event scalar", "scenarios:\n  - name: a\n    events: [leaf0-spine1]\n", "s.yaml:3: events[0]: want an event"},
		{"event no link", "scenarios:\n  - name: a\n    events: [{at: 1ms}]\n", "s.yaml:3: events[0]: missing fail or restore"},
		{"event both", "scenarios:\n  - name: a\n    events: [{fail: leaf0-spine1, restore: leaf0-spine1}]\n", "s.yaml:3: events[0].restore: an event has one of fail and restore"},
		{"event field", "scenarios:\n  - name: a\n    events: [{fail: leaf0-spine1, when: 1ms}]\n", "s.yaml:3: events[0].when: unknown field of an event"},
		{"event time", "scenarios:\n  - name: a\n    events: [{fail: leaf0-spine1, at: soon}]\n", "s.yaml:3: events[0].at: "},
		{"event unknown link", "scenarios:\n  - name: a\n    events:\n      - {fail: leaf0-spine9}\n", "s.yaml:4: events[0]: unknown link \"leaf0-spine9\""},
		{"event host link", "scenarios:\n  - name: a\n    events: [{fail: h0-leaf0}]\n", "s.yaml:3: events[0]: h0-leaf0: a host's link cannot fail"},
		{"event twice", "scenarios:\n  - name: a\n    events:\n      - {at: 2ms, fail: leaf0-spine1}\n      - {at: 1ms, fail: spine1-leaf0}\n", "s.yaml:4: events[0]: leaf0-spine1 fails while it is down"},
		{"event restore up", "scenarios:\n  - name: a\n    events:\n      - {at: 2ms, restore: leaf0-spine1}\n", "s.yaml:4: events[0]: leaf0-spine1 comes back while it is up"},
		{"event disconnects", "scenarios:\n  - name: a\n    events:\n      - {at: 2ms, fail: leaf0-spine1}\n      - {at: 3ms, fail: leaf0-spine0}\n", "s.yaml:5: events[1]: failing leaf0-spine1, leaf0-spine0 disconnects"},
		{"event of a failed link", "scenarios:\n  - name: a\n    fail: [leaf0-spine1]\n    events: [{fail: leaf0-spine1}]\n", "s.yaml:4: events[0]: unknown link"},
		{"phase event late", "scenarios:\n  - name: a\n    phases:\n      - duration: 1ms\n        events: [{at: 1ms, fail: leaf0-spine1}]\n", "s.yaml:5: phases[0].events[0].at: 1ms: want a time within the phase"},
		{"phase events order", "scenarios:\n  - name: a\n    phases:\n      - duration: 1ms\n        events: [{fail: leaf0-spine1}]\n      - duration: 1ms\n        events: [{at: 0.5ms, fail: leaf0-spine1}]\n", "s.yaml:7: phases[1].events[0]: leaf0-spine1 fails while it is down"},
		{"phase field", "scenarios:\n  - name: a\n    phases:\n      - {duration: 1ms, lod: 0.5}\n", "s.yaml:4: phases[0].lod: unknown field of a phase"},
		{"phase field twice", "scenarios:\n  - name: a\n    phases:\n      - {duration: 1ms, load: 0.5, load: 0.6}\n", "phases[0].load: given twice"},
		{"phase scalar", "scenarios:\n  - name: a\n    phases:\n      - 1ms\n", "s.yaml:4: phases[0]: want a phase"},
		{"phases scalar", "scenarios:\n  - name: a\n    phases: 1ms\n", "s.yaml:3: phases: want a list of phases"},
		{"phases empty", "scenarios:\n  - name: a\n    phases: []\n", "s.yaml:3: phases: want a list of phases"},
		{"phase workload", "scenarios:\n  - name: a\n    phases:\n      - {duration: 1ms, workload: nosuch}\n", "s.yaml:4: phases[0].workload: \"nosuch\" is neither"},
		{"phase incast word", "scenarios:\n  - name: a\n    phases:\n      - {duration: 1ms, incast: many}\n", "s.yaml:4: phases[0].incast: want none or a mapping"},
		{"phase incast fanin", "scenarios:\n  - name: a\n    phases:\n      - duration: 1ms\n      - duration: 1ms\n        incast: {fanin: 30}\n", "s.yaml:6: phases[1].incast: fanin: 30 senders, but the fabric has only 23 other hosts"},
		{"phase inherits incast", "scenarios:\n  - name: a\n    incast: {fanin: 30}\n    phases:\n      - duration: 1ms\n", "s.yaml:5: phases[0].incast: fanin: 30 senders"},
		{"phase flows", "scenarios:\n  - name: a\n    phases:\n      - {duration: 100s}\n", "s.yaml:4: phases[0].duration: about 3.9e+07 flows expected"},
		{"phases and duration", "scenarios:\n  - name: a\n    duration: 5ms\n    phases:\n      - duration: 1ms\n", "s.yaml:3: duration: a phased scenario lasts its phases"},
		{"phased base", "scenarios:\n  - name: a\n    base: day\n    load: 0.5\n", "s.yaml:2: phases: the base scenario is phased"},
		{"phased base's incast", "scenarios:\n  - name: a\n    base: day\n    clos: {leaves: 2, hosts_per_leaf: 2}\n", "s.yaml:2: phases[2].incast: fanin: 16 senders, but the fabric has only 3 other hosts"},
		{"topology fail_random", "scenarios:\n  - name: a\n    topology: topo.txt\n    incast: none\n    fail_random: 1\n", "fail_random 1: every set of 1 of the 1 switch-switch links disconnects a host pair"},
	} {
		_, err := Read(strings.NewReader(tc.text), "s.yaml", dir)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// manyDigits matches a Clos dimension of two digits or more.
var manyDigits = regexp.MustCompile(`(leaves|spines|hosts_per_leaf)["']?\s*:\s*["']?[+]?0*[1-9][0-9]`)

// TestReadScenariosLimits accepts what sits just inside the errors table:
// the most links the default Clos (4 leaves, 2 spines) can lose at random,
// one uplink per leaf or 4 of 8 (5 is refused), and a file ending in an empty
// second document (a non-empty one is refused).
func TestReadScenariosLimits(t *testing.T) {
	for _, text := range []string{
		"scenarios:\n  - name: a\n    fail_random: 4\n",
		"scenarios:\n  - name: a\n---\n",
		"scenarios:\n  - name: a\n---\n# nothing\n",
		"scenarios:\n  - name: a\n...\n",
	} {
		if _, err := Read(strings.NewReader(text), "s.yaml", ""); err != nil {
			t.Errorf("%q: %v", text, err)
		}
	}
}

// testPhasedFile has a phased scenario whose phases inherit the
// scenario's fields, and two that start from built-in phased ones.
// testEventsFile has link events on a scenario and on its phases.
const testEventsFile = `scenarios:
  - name: flap
    phases:
      - duration: 5ms
        events: [{at: 2ms, fail: leaf0-spine1}]
      - duration: 5ms
        events:
          - {fail: leaf1-spine0}
          - {at: 1ms, restore: leaf0-spine1}
    events: [{at: 12ms, restore: spine0-leaf1}]
`

func TestReadEvents(t *testing.T) {
	got, err := Read(strings.NewReader(testEventsFile), "e.yaml", "")
	if err != nil {
		t.Fatal(err)
	}
	ms := topo.Millisecond
	want := []Event{{At: 2 * ms, Link: "leaf0-spine1"}, {At: 5 * ms, Link: "leaf1-spine0"}, {At: 6 * ms, Link: "leaf0-spine1", Up: true}, {At: 12 * ms, Link: "spine0-leaf1", Up: true}}
	if !reflect.DeepEqual(got[0].Events, want) {
		t.Fatalf("events %+v, want %+v", got[0].Events, want)
	}
	if d := got[0].Describe(); !strings.Contains(d, "(leaf0-spine1 fails at 2 ms, leaf1-spine0 fails at 5 ms, leaf0-spine1 comes back at 6 ms, spine0-leaf1 comes back at 12 ms)") {
		t.Errorf("Describe: %s", d)
	}
	f, flows, err := got[0].Build(1)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := got[0].LinkEvents(f)
	if err != nil {
		t.Fatal(err)
	}
	l01, _ := f.LinkByName("leaf0-spine1")
	if len(evs) != 4 || evs[0].Link != l01 || evs[0].Up || evs[0].At != got[0].ArrivalStart()+2*ms || len(flows) == 0 {
		t.Errorf("link events %+v", evs)
	}
	if _, err := Default().LinkEvents(f); err != nil {
		t.Error(err)
	}
	bad := got[0]
	bad.Events = []Event{{Link: "leaf9-spine0"}}
	if _, err := bad.LinkEvents(f); err == nil || !strings.Contains(err.Error(), "scenario flap: event leaf9-spine0 fails at 0") {
		t.Errorf("an unknown link: error %v", err)
	}
}

const testPhasedFile = `scenarios:
  - name: my-day
    workload: websearch
    incast: {fanin: 8}
    phases:
      - duration: 5ms
        load: 0.3
        incast: none
      - {duration: 2ms, workload: googlerpc, load: 0.9}
      - duration: 3ms
        load: 0.5
        incast: {size: 10KB}
  - name: held-copy
    base: day-held
    clos: {hosts_per_leaf: 8}
  - name: held-rephased
    base: day-held
    phases:
      - {duration: 1ms, workload: fb_hadoop}
`

func TestReadPhasedScenarios(t *testing.T) {
	got, err := Read(strings.NewReader(testPhasedFile), "day.yaml", "")
	if err != nil {
		t.Fatal(err)
	}
	day, copied, rephased := got[0], got[1], got[2]
	ph := day.Gen.Phases
	if len(ph) != 3 || day.Gen.Duration != 10*topo.Millisecond {
		t.Fatalf("my-day: %d phases, %s", len(ph), topo.FormatDuration(day.Gen.Duration))
	}
	eight := workload.DefaultIncast()
	eight.FanIn = 8
	small := eight
	small.Size = 10000
	for i, want := range []struct {
		workload string
		load     float64
		incast   workload.IncastConfig
	}{{"websearch", 0.3, workload.IncastConfig{}}, {"googlerpc", 0.9, eight}, {"websearch", 0.5, small}} {
		if p := ph[i]; p.Workload.Name != want.workload || p.Load != want.load || p.Incast != want.incast {
			t.Errorf("phase %d: %s at %v, incast %+v; want %+v", i, p.Workload.Name, p.Load, p.Incast, want)
		}
	}
	if !copied.HeldOut || len(copied.Gen.Phases) != 6 || copied.Clos.HostsPerLeaf != 8 {
		t.Errorf("held-copy: held out %v, %d phases, %d hosts per leaf", copied.HeldOut, len(copied.Gen.Phases), copied.Clos.HostsPerLeaf)
	}
	if rephased.HeldOut || len(rephased.Gen.Phases) != 1 || rephased.Gen.Duration != topo.Millisecond {
		t.Errorf("held-rephased: held out %v, %d phases", rephased.HeldOut, len(rephased.Gen.Phases))
	}
	_, flows, err := day.Build(3)
	if err != nil {
		t.Fatal(err)
	}
	start := day.Gen.Start
	for _, fl := range flows {
		switch {
		case fl.Incast() && (fl.Start < start+5*topo.Millisecond || fl.Size == 64000 == (fl.Start > start+7*topo.Millisecond)):
			t.Errorf("incast flow %+v: none in the first phase, 64 KB in the second, 10 KB in the third", fl)
		case fl.Start > start+day.Gen.Duration:
			t.Errorf("flow %+v after the last phase", fl)
		}
	}
}

func FuzzReadScenarios(f *testing.F) {
	// testScenarioFile's Clos sizes have two digits, which the target
	// skips; its seeds here are the same file with one-digit sizes.
	small := strings.NewReplacer("hosts_per_leaf: 16", "hosts_per_leaf: 6", "hosts_per_leaf: 12", "hosts_per_leaf: 2").Replace(testScenarioFile)
	if manyDigits.MatchString(small) {
		f.Fatalf("seed has a two-digit Clos size:\n%s", small)
	}
	f.Add(small)
	f.Add(strings.Replace(small, "fanin: 32", "fanin: 3", 1))
	f.Add("scenarios:\n  - name: a\n    incast: none\n")
	f.Add("scenarios:\n  - name: a\n    clos: {leaves: 2, spines: 1, hosts_per_leaf: 2}\n    incast: {fanin: 1, size: 1KiB, period: 1us}\n")
	f.Add("scenarios:\n  - {name: b, load: 0.1, duration: 1us, fail_random: 1}\n")
	f.Add("scenarios:\n  - name: t\n    topology: topo.txt\n    incast: {fanin: 3}\n    fail: [n4-n5]\n")
	f.Add(testPhasedFile)
	f.Add("scenarios:\n  - name: p\n    phases:\n      - {duration: 1us, load: 0.1, incast: none}\n      - {duration: 2us, workload: websearch, incast: {fanin: 2, period: 1us}}\n")
	f.Add("scenarios:\n  - name: e\n    phases:\n      - {duration: 1ms, event: {fail: leaf0-spine1}}\n")
	f.Add(testEventsFile)
	f.Add("scenarios:\n  - name: e\n    events: [{at: 1us, fail: leaf1-spine1}, {at: 2us, restore: leaf1-spine1}]\n")
	f.Add("scenarios:\n  - {name: b, base: day, clos: {hosts_per_leaf: 5}}\n")
	f.Add("scenarios:\n  - name: r\n    topology: topo.txt\n    flows: flows.txt\n    window: 1ms\n")
	f.Add("scenarios:\n  - {name: r, topology: topo.txt, flows: flows.txt, window: 500us, fail_random: 1}\n")
	dir := writeTraceFiles(f)
	f.Fuzz(func(t *testing.T, text string) {
		if manyDigits.MatchString(text) {
			// a Clos of hundreds of hosts is valid but slow to build and
			// route; this target checks the parser, not topo's scale
			t.Skip("a Clos dimension of two digits or more: valid, but slow to build")
		}
		got, err := Read(strings.NewReader(text), "fuzz.yaml", dir)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		if len(got) == 0 {
			t.Fatal("no scenarios and no error")
		}
		for _, s := range got {
			if err := checkScenarioName(s.Name); err != nil {
				t.Errorf("accepted name: %v", err)
			}
			if err := checkScenario(s); err != nil {
				t.Errorf("accepted scenario %s: %v", s.Name, err)
			}
			f, err := s.FixedFabric()
			if err != nil {
				t.Fatal(err)
			}
			if i, err := checkEvents(f, s.Events); err != nil {
				t.Errorf("accepted scenario %s: event %d: %v", s.Name, i, err)
			}
			for k := 1; s.Trace != nil && k <= s.Trace.Count(); k++ {
				if _, flows, err := s.Build(uint64(k)); err != nil || len(flows) == 0 {
					t.Errorf("scenario %s, window %d of %d: %d flows, %v", s.Name, k, s.Trace.Count(), len(flows), err)
				}
			}
			if !slices.IsSortedFunc(s.Events, func(a, b Event) int { return cmp.Compare(a.At, b.At) }) {
				t.Errorf("scenario %s: events out of order: %v", s.Name, s.Events)
			}
		}
	})
}
