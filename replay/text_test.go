package replay

import (
	"strings"
	"testing"
)

// TestWriteText heads the table with the description and adds what the
// link events did only when there were some.
func TestWriteText(t *testing.T) {
	r := &Result{Counters: Counters{Reroutes: 2, LinkDrops: 3, StaleDrops: 4, Timeouts: 5}}
	var b strings.Builder
	if err := r.WriteText(&b, "tiny", 0); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "# tiny\n\n") || strings.Contains(b.String(), "link events") {
		t.Errorf("without link events:\n%s", b.String())
	}
	b.Reset()
	if err := r.WriteText(&b, "tiny", 1); err != nil {
		t.Fatal(err)
	}
	want := "\nlink events: 1; flows rerouted: 2; packets dropped on failed links: 3, on old routes: 4; loss timeouts: 5\n"
	if !strings.HasSuffix(b.String(), want) {
		t.Errorf("with a link event:\n%s\nwant it to end with %q", b.String(), want)
	}
}
