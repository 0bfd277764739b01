package metrics

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestSummaryKeysOnce(t *testing.T) {
	seen := make(map[string]bool)
	for _, k := range SummaryKeys() {
		if seen[k.Name] {
			t.Errorf("key %s defined twice", k.Name)
		}
		seen[k.Name] = true
		if k.Fabrics&Both == 0 || k.Fabrics&^Both != 0 || k.Meaning == "" {
			t.Errorf("key %s: fabrics %v, meaning %q", k.Name, k.Fabrics, k.Meaning)
		}
	}
	if !Testbed.Measures("queue_feature_bytes_mean") || Testbed.Measures("queue_bytes_mean") || Testbed.Measures("events") ||
		!Simulator.Measures("pfc_pauses") || Simulator.Measures("control_steps") || Both.Measures("no_such_key") {
		t.Error("Measures disagrees with the table")
	}
}

// TestOmitUnmeasured checks that the simulator's summary passes unchanged
// and that the testbed's loses exactly the keys it does not measure, the
// rest in order.
func TestOmitUnmeasured(t *testing.T) {
	s := sampleSummary()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := OmitUnmeasured(b, Simulator)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(sim, b) {
		t.Errorf("the simulator's summary changed:\n%s\n%s", b, sim)
	}
	tb, err := OmitUnmeasured(b, Testbed)
	if err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{`"queue_bytes_mean"`, `"queue_bytes_p99"`, `"pfc_pauses"`, `"drops"`, `"events"`} {
		if bytes.Contains(tb, []byte(gone)) {
			t.Errorf("the testbed's summary keeps %s: %s", gone, tb)
		}
	}
	want := strings.NewReplacer(`"queue_bytes_mean":1234.5,`, "", `"queue_bytes_p99":99999,`, "", `"pfc_pauses":3,`, "",
		`"drops":0,`, "", `"events":123456,`, "").Replace(string(b))
	if string(tb) != want {
		t.Errorf("testbed summary\n%s\nwant\n%s", tb, want)
	}
	if _, err := OmitUnmeasured([]byte(`[1]`), Testbed); err == nil {
		t.Error("a JSON array passed as a summary")
	}
}
