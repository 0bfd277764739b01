package tests

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// linkEventsFile has one phased scenario whose first phase fails a
// leaf-spine link and whose second brings it back, and the same traffic
// without the events.
const linkEventsFile = `scenarios:
  - name: flap
    incast: {fanin: 8}
    phases:
      - duration: 2ms
        load: 0.5
        events: [{at: 0.5ms, fail: leaf0-spine1}]
      - duration: 2ms
        load: 0.7
        events: [{at: 1ms, restore: leaf0-spine1}]
  - name: steady
    incast: {fanin: 8}
    phases:
      - {duration: 2ms, load: 0.5}
      - {duration: 2ms, load: 0.7}
`

// TestCLILinkEvents runs graphcc sim on a scenario file whose phases fail
// and restore a link: every flow finishes, flows are rerouted and packets
// dropped, two runs agree, and the per-switch agents lose their messages
// on the link and carry on; eval runs the scenario too.
func TestCLILinkEvents(t *testing.T) {
	bin := graphccBinary(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ev.yaml"), []byte(linkEventsFile), 0o644); err != nil {
		t.Fatal(err)
	}
	sim := func(name, out string, more ...string) string {
		return mustRun(t, bin, dir, append([]string{"sim", "--scenario-file", "ev.yaml", "--scenario", name, "--seed", "3", "--summary-out", out}, more...)...)
	}
	out := sim("flap", "a.json")
	if !strings.Contains(out, "leaf0-spine1 fails at 500 us, leaf0-spine1 comes back at 3 ms") || !strings.Contains(out, "link events: 2; flows rerouted: ") ||
		strings.Contains(out, "flows rerouted: 0;") {
		t.Errorf("sim output lacks the events or reroutes:\n%s", out)
	}
	a, b := summaryOf(t, filepath.Join(dir, "a.json")), (map[string]any)(nil)
	sim("flap", "b.json")
	b = summaryOf(t, filepath.Join(dir, "b.json"))
	if !reflect.DeepEqual(a, b) {
		t.Errorf("two runs of the same seed differ:\n%v\n%v", a, b)
	}
	if a["completed"] != a["flows"] || a["drops"].(float64) == 0 {
		t.Errorf("flap: %v of %v flows completed, %v drops; want all, and drops", a["completed"], a["flows"], a["drops"])
	}
	steady := sim("steady", "c.json")
	c := summaryOf(t, filepath.Join(dir, "c.json"))
	if c["drops"].(float64) != 0 || c["flows"] != a["flows"] || strings.Contains(steady, "link events") {
		t.Errorf("steady: %v drops, %v flows (flap: %v): want none, and flap's traffic", c["drops"], c["flows"], a["flows"])
	}

	sim("flap", "d.json", "--policy", "graphcc:bare-switch", "--agents", "per-switch")
	d := summaryOf(t, filepath.Join(dir, "d.json"))
	if d["completed"] != d["flows"] || d["agent_messages_lost"].(float64) == 0 || d["late_messages"].(float64) == 0 {
		t.Errorf("per-switch agents: %v of %v flows, %v messages lost, %v late: want all flows, and lost and late messages",
			d["completed"], d["flows"], d["agent_messages_lost"], d["late_messages"])
	}

	ev := mustRun(t, bin, dir, "eval", "--scenario-file", "ev.yaml", "--scenarios", "flap", "--policies", "static", "--seeds", "3", "--rewards", "", "--out", "ev")
	if !strings.Contains(ev, "leaf0-spine1 fails at 500 us") {
		t.Errorf("eval report does not describe the events:\n%s", ev)
	}
}
