package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestCLISimAgents: graphcc sim --agents per-switch on a small Clos
// reports the agents' keys (and a central run none of them); without loss
// the agents decide as the central policy (no mismatch, no late message,
// K × the directed switch-to-switch links' messages per step); with 10 %
// message loss late messages are counted, every flow completes and two
// runs with the same seed write the same FCT records and summary; and the
// agent flags are refused where they mean nothing.
func TestCLISimAgents(t *testing.T) {
	bin := graphccBinary(t)
	dir := t.TempDir()
	small := []string{"sim", "--leaves", "2", "--spines", "2", "--hosts-per-leaf", "2", "--incast-fanin", "3",
		"--duration", "2ms", "--seed", "7", "--policy", "graphcc:bare-switch"}
	run := func(name string, extra ...string) map[string]any {
		out := mustRun(t, bin, dir, append(append(small, extra...), "--fct-out", name+".fct", "--summary-out", name+".json")...)
		if len(extra) > 1 && !strings.Contains(out, "decision mismatches") {
			t.Errorf("%s: the table has no agent lines:\n%s", name, out)
		}
		return summaryOf(t, filepath.Join(dir, name+".json"))
	}
	central := run("central")
	if _, ok := central["agents"]; ok {
		t.Errorf("a central run's summary has agent keys: %v", central)
	}
	exact := run("exact", "--agents", "per-switch")
	steps := exact["agent_steps"].(float64)
	// 2 leaves × 2 spines: 8 directed switch links, K = 2 rounds
	want := map[string]float64{"agent_switches": 4, "agent_messages": 16 * steps, "decision_mismatches": 0,
		"late_messages": 0, "agent_messages_lost": 0, "agent_static_steps": 0}
	for k, v := range want {
		if exact[k] != v {
			t.Errorf("no loss: %s = %v, want %v (%d steps)", k, exact[k], v, int(steps))
		}
	}
	if exact["agents"] != "per-switch" || steps < 10 || exact["agent_round_us_mean"].(float64) <= 0 {
		t.Errorf("no loss: agents %v, %v steps, round %v µs", exact["agents"], steps, exact["agent_round_us_mean"])
	}
	lossy := run("lossy", "--agents", "per-switch", "--agent-loss", "0.1")
	again := run("again", "--agents", "per-switch", "--agent-loss", "0.1")
	if lossy["late_messages"].(float64) == 0 || lossy["completed"] != lossy["flows"] {
		t.Errorf("10%% loss: %v late messages, %v of %v flows completed", lossy["late_messages"], lossy["completed"], lossy["flows"])
	}
	if !reflect.DeepEqual(lossy, again) {
		t.Errorf("two lossy runs with one seed wrote different summaries:\n%v\n%v", lossy, again)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "lossy.fct"))
	b, _ := os.ReadFile(filepath.Join(dir, "again.fct"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("two lossy runs with one seed wrote different FCT records (%d and %d bytes)", len(a), len(b))
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--agent-loss", "0.1"}, "--agent-loss needs --agents per-switch"},
		{[]string{"--agents", "per-switch-ideal", "--agent-deadline", "5us"}, "--agent-deadline needs --agents per-switch"},
		{[]string{"--agents", "per-switch", "--agent-deadline", "50us"}, "--agent-deadline 50us, --agent-compute 0: 2 rounds of their sum must end within --interval 100us"},
		{[]string{"--agents", "per-switch", "--agent-deadline", "40us", "--agent-compute", "10us"}, "2 rounds of their sum must end within"},
		{[]string{"--agents", "per-switch", "--agent-compute", "-1us"}, "--agent-compute -1us"},
		{[]string{"--agents", "per-switch", "--agent-loss", "1"}, "--agent-loss 1: must be in [0, 1)"},
		{[]string{"--agents", "per-switch", "--agent-misses", "-1"}, "--agent-misses -1: must not be negative"},
	} {
		_, errOut, code := graphcc(t, bin, dir, append(small, tc.args...)...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("sim %v: exit %d, stderr %q, want %q", tc.args, code, errOut, tc.want)
		}
	}
}
