package tests

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"graphcc/control"
	"graphcc/controller"
	"graphcc/hostgen"
	"graphcc/internal/fileio"
	"graphcc/metrics"
	"graphcc/policy"
	"graphcc/replay"
	"graphcc/topo"
	"graphcc/trace"
)

// timedReplay is a replayedFabric whose reads also carry the simulator's
// step times (controller.TimedFabric), so that the testbed loop cuts its
// queue samples where the simulator cut its own.
type timedReplay struct {
	*replayedFabric
	now []int64
}

func (r *timedReplay) ReadTime() (now, interval int64) {
	return r.now[r.reads-2], control.DefaultInterval
}

// TestSummaryKeysBothFabrics runs one trace through both fabrics' summary
// code: the simulator's, and the testbed's (controller.RunLoop on switches
// that report the telemetry the simulator measured, then
// controller.Summarize of the simulator's FCT records and CE marks). Key
// by key (metrics.SummaryKeys): a key both fabrics measure has the same
// value on the same data, a key one fabric does not measure is absent
// from its summary, and both summaries name only keys the table defines.
func TestSummaryKeysBothFabrics(t *testing.T) {
	f, gen, flows := loopTrace(t)
	until := trace.FirstStart(flows) + gen.Duration/2 // the queue span ends before the run does

	rec := &recorder{Policy: &scripted{f: f}}
	sim, err := replay.Run(replay.Config{Fabric: f, Flows: flows, Policy: rec, QueueUntil: until})
	if err != nil {
		t.Fatal(err)
	}
	bed := loopSummary(t, f, rec, until, runRecordOf(sim, flows))

	simKeys, bedKeys := jsonKeys(t, sim.Summary), jsonKeys(t, bed)
	for _, k := range metrics.SummaryKeys() {
		_, inSim := simKeys[k.Name]
		_, inBed := bedKeys[k.Name]
		switch {
		case inSim && !metrics.Simulator.Measures(k.Name):
			t.Errorf("%s: the simulator writes a key it does not measure", k.Name)
		case inBed && !metrics.Testbed.Measures(k.Name):
			t.Errorf("%s: the testbed writes a key it does not measure", k.Name)
		case inSim && inBed && !sameData[k.Name]:
			// not the same data on the two fabrics (wall time, memory,
			// how the step ran)
		case inSim && inBed && !reflect.DeepEqual(simKeys[k.Name], bedKeys[k.Name]):
			t.Errorf("%s: simulator %v, testbed %v on the same data", k.Name, simKeys[k.Name], bedKeys[k.Name])
		}
	}
	for _, keys := range []map[string]any{simKeys, bedKeys} {
		for name := range keys {
			if !metrics.Both.Measures(name) {
				t.Errorf("key %s is not in metrics.SummaryKeys", name)
			}
		}
	}
	// What both measure, both write (on this central run).
	for _, name := range []string{"flows", "completed", "slowdown", "slowdown_by_size", "slowdown_incast", "slowdown_background",
		"throughput_gbps_mean", "queue_seconds", "queue_feature_bytes_mean", "queue_feature_bytes_p99", "ecn_marked_packets",
		"sim_seconds", "wall_seconds", "peak_rss_bytes", "ecn_settings"} {
		if _, ok := bedKeys[name]; !ok {
			t.Errorf("the testbed's summary lacks %s", name)
		}
		if _, ok := simKeys[name]; !ok {
			t.Errorf("the simulator's summary lacks %s", name)
		}
	}
	if sim.Summary.QueueFeatureMean == 0 || sim.Summary.Completed == 0 || len(sim.Summary.ECNSettings) < 2 {
		t.Errorf("a run too quiet to compare: queue feature %v, %d completed, %d settings",
			sim.Summary.QueueFeatureMean, sim.Summary.Completed, len(sim.Summary.ECNSettings))
	}
	if controller.AgentsPerSwitch != policy.AgentsPerSwitch || controller.AgentsCentral != policy.AgentsCentral {
		t.Error("the fabrics name the agent modes differently (agents)")
	}
}

// sameData are the keys both fabrics measure whose values the test feeds
// both from the same data.
var sameData = map[string]bool{
	"flows": true, "completed": true, "slowdown": true, "slowdown_by_size": true, "slowdown_incast": true,
	"slowdown_background": true, "throughput_gbps_mean": true, "queue_seconds": true, "queue_feature_bytes_mean": true,
	"queue_feature_bytes_p99": true, "ecn_marked_packets": true, "sim_seconds": true, "ecn_settings": true,
}

// runRecordOf is what the testbed would have measured of sim's run of
// flows: its FCT records, its switches' CE marks as the hosts' and its
// span.
func runRecordOf(sim *replay.Result, flows []trace.Flow) controller.RunRecord {
	return controller.RunRecord{Flows: len(flows), FCT: sim.FCT, Hosts: []hostgen.Stats{{CEMarked: sim.Counters.ECNMarked}},
		Interval: control.DefaultInterval, First: trace.FirstStart(flows), End: sim.End, Wall: time.Second, Scale: 1}
}

// loopSummary runs the testbed's control loop on switches that report
// rec's telemetry at rec's times, under the policy rec wraps, and
// summarizes r with it as RunWorkload does.
func loopSummary(t *testing.T, f *topo.Fabric, rec *recorder, until int64, r controller.RunRecord) controller.TestbedSummary {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	static := control.StaticSettings(f)
	fab := &timedReplay{replayedFabric: &replayedFabric{steps: rec.steps, held: slices.Clone(static), cancel: cancel}, now: rec.now}
	clock, err := hostgen.NewClock(time.Now(), 1)
	if err != nil {
		t.Fatal(err)
	}
	loop, err := controller.RunLoop(ctx, controller.LoopConfig{
		Fabric: f, Runtime: fab, Policy: &scripted{f: f}, Clock: clock,
		Interval: control.DefaultInterval, Static: static, QueueUntil: until,
	})
	if err != nil {
		t.Fatal(err)
	}
	if loop.Steps != len(rec.steps) {
		t.Fatalf("the testbed loop made %d steps, the simulator %d", loop.Steps, len(rec.steps))
	}
	r.Loop = loop
	return controller.Summarize(r)
}

// jsonKeys returns the top-level keys of v's summary JSON as
// fileio.WriteJSON writes it, with their values.
func jsonKeys(t *testing.T, v any) map[string]any {
	t.Helper()
	var b strings.Builder
	if err := fileio.WriteJSON(&b, v); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(b.String()), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSummaryKeysDocumented checks that docs/formats.md's table of the
// summary keys names every key of metrics.SummaryKeys, and no other, with
// the fabrics that write it.
func TestSummaryKeysDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "formats.md"))
	if err != nil {
		t.Fatal(err)
	}
	documented := make(map[string]string)
	for line := range strings.Lines(string(b)) {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		fabric := strings.TrimSpace(cells[2])
		if fabric != metrics.Both.String() && fabric != metrics.Simulator.String() && fabric != metrics.Testbed.String() {
			continue // another table
		}
		documented[strings.Trim(strings.TrimSpace(cells[1]), "`")] = fabric
	}
	for _, k := range metrics.SummaryKeys() {
		if got, ok := documented[k.Name]; !ok || got != k.Fabrics.String() {
			t.Errorf("docs/formats.md: key %s written by %q, metrics.SummaryKeys says %q", k.Name, got, k.Fabrics)
		}
		delete(documented, k.Name)
	}
	for name := range documented {
		t.Errorf("docs/formats.md documents a summary key %s that metrics.SummaryKeys does not define", name)
	}
}
