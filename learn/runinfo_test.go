package learn

import (
	"errors"
	"maps"
	"strings"
	"testing"
)

func TestRunInfo(t *testing.T) {
	one := RunInfo{Command: "graphcc train", Scenario: "fb60", ScenarioSummary: "FB_Hadoop 60 %"}
	file := RunInfo{Command: "graphcc train", Scenario: "mine", ScenarioSummary: "mine's", ScenarioFile: "s.yaml",
		Curriculum: []string{"a", "b"}, HostActions: "tuned:dir", ResumedFrom: "ck"}
	for _, tc := range []struct {
		r    RunInfo
		ck   *Checkpoint
		want map[string]string
	}{
		{one, nil, map[string]string{"command": "graphcc train", "scenario": "fb60"}},
		{file, &Checkpoint{Episodes: 4}, map[string]string{"command": "graphcc train", "scenario": "mine", "scenario_file": "s.yaml",
			"scenario_summary": "mine's", "curriculum": "a,b", "host_actions": "tuned:dir", "resumed_from": "ck after 4 episodes"}},
	} {
		if got := tc.r.ModelMeta(tc.ck); !maps.Equal(got, tc.want) {
			t.Errorf("ModelMeta = %v, want %v", got, tc.want)
		}
	}
	if got, want := file.CheckpointMeta(), map[string]string{"scenario": "mine", "scenario_summary": "mine's", "scenario_file": "s.yaml"}; !maps.Equal(got, want) {
		t.Errorf("CheckpointMeta = %v, want %v", got, want)
	}
	for _, tc := range []struct {
		meta map[string]string
		err  string
	}{
		{one.CheckpointMeta(), ""},
		{map[string]string{"scenario": "fb60", "scenario_summary": "FB_Hadoop 60 %", "scenario_file": "other.yaml"}, ""},
		{map[string]string{"scenario": "fb90", "scenario_summary": "FB_Hadoop 60 %"}, `it belongs to another run: scenario is "fb90" in the checkpoint, "fb60" in this run`},
		{nil, `scenario is "" in the checkpoint, "fb60" in this run` + "\n" + `scenario_summary is "" in the checkpoint, "FB_Hadoop 60 %" in this run`},
	} {
		err := one.CheckResume(tc.meta)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrCheckpoint)) {
			t.Errorf("CheckResume(%v) = %v, want %q", tc.meta, err, tc.err)
		}
	}
}
