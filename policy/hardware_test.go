package policy

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"graphcc/replay"
	"graphcc/scenario"
)

// TestTunedWarnsOfOtherHardware: tuned:FILE and tuned:DIR tell the log
// which field of the run's simulated hardware differs from the one the
// tune result was made on, only when asked (Env.WarnHardware), and a file
// without a hardware field counts as made on the default.
func TestTunedWarnsOfOtherHardware(t *testing.T) {
	def := Hardware(replay.Params{}, 0)
	fast := replay.DefaultParams()
	fast.DCQCN.IncreaseInterval = 55_000_000 // 55 µs in ps
	acksFirst, fastAcksFirst := replay.DefaultParams(), fast
	acksFirst.AckHighPriority, fastAcksFirst.AckHighPriority = true, true
	dir := t.TempDir()
	write := func(name, hardware string) string {
		t.Helper()
		body := `{"scenario": "` + strings.TrimSuffix(name, ".json") + `", "best_policy": "static:2,32,0.01"`
		if hardware != "" {
			body += `, "hardware": ` + strconv.Quote(hardware)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body+"}"), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	onDefault := write("fb60.json", def)
	old := write("fb80.json", "")
	onFast := write("fb90.json", Hardware(fast, 0))
	for _, tc := range []struct {
		name   string
		spec   string
		env    Env
		warned string // a part of the warning, or "" for none
	}{
		{"same hardware", "tuned:" + onDefault, Env{WarnHardware: HardwareAll}, ""},
		{"other timer", "tuned:" + onDefault, Env{WarnHardware: HardwareAll, Params: fast}, "params.DCQCN.IncreaseInterval 300000000, here 55000000"},
		{"not asked", "tuned:" + onDefault, Env{Params: fast}, ""},
		{"other interval", "tuned:" + onDefault, Env{WarnHardware: HardwareAll, Interval: 200_000_000}, "interval_ps 100000000, here 200000000"},
		{"not recorded: the default", "tuned:" + old, Env{WarnHardware: HardwareAll}, ""},
		{"not recorded, other here", "tuned:" + old, Env{WarnHardware: HardwareAll, Params: fast}, "IncreaseInterval 300000000, here 55000000"},
		{"tuned on fast, run on default", "tuned:" + onFast, Env{WarnHardware: HardwareAll}, "IncreaseInterval 55000000, here 300000000"},
		{"tuned on fast, run on fast", "tuned:" + onFast, Env{WarnHardware: HardwareAll, Params: fast}, ""},
		// The testbed's check: the DCQCN constants alone.
		{"DCQCN only, ACKs first", "tuned:" + onDefault, Env{WarnHardware: HardwareDCQCN, Params: acksFirst, Interval: 200_000_000}, ""},
		{"DCQCN only, other timer", "tuned:" + onDefault, Env{WarnHardware: HardwareDCQCN, Params: fastAcksFirst}, "params.DCQCN.IncreaseInterval 300000000, here 55000000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			tc.env.Log = slog.New(slog.NewTextHandler(&buf, nil))
			if _, err := Parse(context.Background(), tc.spec, tc.env); err != nil {
				t.Fatal(err)
			}
			got := buf.String()
			if tc.warned == "" && got != "" || tc.warned != "" && (!strings.Contains(got, tc.warned) || !strings.Contains(got, "level=WARN") || strings.Contains(got, "AckHighPriority")) {
				t.Errorf("logged %q, want a warning with %q", got, tc.warned)
			}
		})
	}

	// tuned:DIR warns when it reads a scenario's file, once.
	var buf bytes.Buffer
	np, err := Parse(context.Background(), "tuned:"+dir, Env{WarnHardware: HardwareAll, Log: slog.New(slog.NewTextHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fb90", "fb90", "fb60"} {
		if err := np.Check(scenario.Scenario{Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(buf.String(), "level=WARN"); n != 1 || !strings.Contains(buf.String(), "fb90.json") {
		t.Errorf("tuned:DIR logged %q: want one warning, of fb90.json", buf.String())
	}
}

func TestHardwareDiff(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want []string
	}{
		{`{"x":1}`, `{"x":1}`, nil},
		{`{"p":{"a":1,"b":2},"i":3}`, `{"p":{"a":1,"b":5},"i":4}`, []string{"i 3, here 4", "p.b 2, here 5"}},
		{`{"a":1}`, `{"a":1,"b":true}`, []string{"b none, here true"}},
		{`{"a":1,"b":"x"}`, `{"a":1}`, []string{`b "x", here none`}},
		{`not json`, `{"a":1}`, []string{`not json, here {"a":1}`}},
	} {
		got := HardwareDiff(tc.a, tc.b)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("HardwareDiff(%s, %s) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}
