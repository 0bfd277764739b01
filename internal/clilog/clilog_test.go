package clilog

import (
	"bytes"
	"log/slog"
	"testing"
)

func TestLineHandler(t *testing.T) {
	var w bytes.Buffer
	log := New(&w, slog.LevelInfo)
	log.Debug("not shown")
	log.Warn("flag ignored with --flows", "flag", "--load")
	log.With("lab", "gcc").WithGroup("switch").Info("started", "name", "leaf 0", "pid", 7)
	log.Error("no fields")
	want := `graphcc: warning: flag ignored with --flows (flag=--load)
graphcc: info: started (lab=gcc switch.name="leaf 0" switch.pid=7)
graphcc: error: no fields
`
	if w.String() != want {
		t.Errorf("logged\n%s\nwant\n%s", w.String(), want)
	}
}
