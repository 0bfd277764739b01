package lab

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"
)

// BenchmarkLabUpDown brings the network part of the default Clos (6
// switch and 24 host namespaces, 32 veth pairs, host addresses and
// neighbours; no BMv2) up and down, and reports the two phases apart:
// up-s/op and down-s/op. (Down returns once the namespaces are unmounted;
// the kernel frees them and their veths in the background.)
func BenchmarkLabUpDown(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("needs root to create network namespaces")
	}
	p := labPlan(b, "bench", 4, 2, 6)
	dir := b.TempDir()
	log := slog.New(slog.DiscardHandler)
	ctx := context.Background()
	b.Cleanup(func() { DownLogger(ctx, p.Lab, dir, log) })
	var up, down time.Duration
	n := 0
	for b.Loop() {
		t0 := time.Now()
		if _, err := Up(ctx, Config{Plan: p, Dir: dir, NoSwitches: true, Logger: log}); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := DownLogger(ctx, p.Lab, dir, log); err != nil {
			b.Fatal(err)
		}
		up, down = up+t1.Sub(t0), down+time.Since(t1)
		n++
	}
	b.ReportMetric(up.Seconds()/float64(n), "up-s/op")
	b.ReportMetric(down.Seconds()/float64(n), "down-s/op")
}

// BenchmarkLabUpDownFakeSwitches is BenchmarkLabUpDown with the switch
// processes, gRPC waits and Thrift CLI runs of the lifecycle, played by the
// test binary's stand-ins (bmv2_fake_test.go): the lab's own overhead on
// top of the network, not BMv2's start-up time.
func BenchmarkLabUpDownFakeSwitches(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("needs root to create network namespaces")
	}
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	bin := b.TempDir()
	for _, name := range []string{DefaultSwitchBinary, DefaultCLIBinary} {
		if err := os.Symlink(exe, bin+"/"+name); err != nil {
			b.Fatal(err)
		}
	}
	b.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	b.Setenv(fakeEnv, b.TempDir())
	p := labPlan(b, "benchf", 4, 2, 6)
	dir := b.TempDir()
	log := slog.New(slog.DiscardHandler)
	ctx := context.Background()
	b.Cleanup(func() { DownLogger(ctx, p.Lab, dir, log) })
	var up, down time.Duration
	n := 0
	for b.Loop() {
		t0 := time.Now()
		if _, err := Up(ctx, Config{Plan: p, Dir: dir, Logger: log}); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := DownLogger(ctx, p.Lab, dir, log); err != nil {
			b.Fatal(err)
		}
		up, down = up+t1.Sub(t0), down+time.Since(t1)
		n++
	}
	b.ReportMetric(up.Seconds()/float64(n), "up-s/op")
	b.ReportMetric(down.Seconds()/float64(n), "down-s/op")
}
