package p4rt

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"graphcc/controller/lab"
	"graphcc/internal/privtest"
)

// inbandGapMessages is how many messages each idle-gap case of
// TestBMv2InbandConditions sends.
const inbandGapMessages = 40

// inbandCase is one of the conditions an agent's round meets: messages
// back to back, both directions at once (a round), or each after an idle
// gap (an agent sends a step's messages after seconds of silence).
type inbandCase struct {
	name string
	gap  time.Duration // idle time before each message
	n    int           // messages TestBMv2InbandConditions sends
	both bool          // B sends each message to A as A sends it to B
}

// inbandCases returns the conditions TestBMv2InbandConditions and
// BenchmarkBMv2InbandLatency run.
func inbandCases() []inbandCase {
	return []inbandCase{
		{"back to back", 0, inbandMessages, false},
		{"both ways", 0, inbandMessages, true},
		{"after 20 ms idle", 20 * time.Millisecond, inbandGapMessages, false},
		{"after 200 ms idle", 200 * time.Millisecond, inbandGapMessages / 4, false},
	}
}

// setLabRates sets both switches' queue rates to the lab's for a 100 Gbps
// port at scale 40000: the data queues at 298 packets/s, the control
// queue at 5208.
func setLabRates(tb testing.TB, ctx context.Context, l *inbandLab, cli string) {
	tb.Helper()
	for _, thrift := range []int{l.thriftA, l.thriftB} {
		cmds := fmt.Sprintf("set_queue_rate 298 1\nset_queue_rate 5208 1 %d\n", lab.PriorityQueues-1)
		if err := runThriftCLI(ctx, l.ns, cli, thrift, cmds); err != nil {
			tb.Fatal(err)
		}
	}
}

// exchange sends message i from A to B, and from B to A too if both, and
// checks that each arrives whole, on its port, next in order. It returns
// the one-way latency (from the send's start to B's stream receiving it)
// and the delivery latency (from B's stream to ReceivePacket).
func (l *inbandLab) exchange(ctx context.Context, i int, both bool) (oneWay, deliver time.Duration, err error) {
	want := inbandPayload(i)
	t0 := time.Now()
	if err := l.a.SendPacket(ctx, l.aToB, want); err != nil {
		return 0, 0, err
	}
	if both {
		if err := l.b.SendPacket(ctx, l.bFromA, want); err != nil {
			return 0, 0, err
		}
	}
	got, err := l.b.ReceivePacket(ctx)
	if err != nil {
		return 0, 0, err
	}
	oneWay, deliver = got.At.Sub(t0), time.Since(got.At)
	if got.Port != l.bFromA || !bytes.Equal(got.Payload, want) {
		return 0, 0, fmt.Errorf("PacketIn on port %d with %q, want port %d with %q", got.Port, got.Payload, l.bFromA, want)
	}
	if both {
		back, err := l.a.ReceivePacket(ctx)
		if err != nil {
			return 0, 0, fmt.Errorf("back: %w", err)
		}
		if !bytes.Equal(back.Payload, want) {
			return 0, 0, fmt.Errorf("back: %q, want %q", back.Payload, want)
		}
	}
	return oneWay, deliver, nil
}

// TestBMv2InbandConditions sends in-band messages between two BMv2
// switches in each of inbandCases, without and then with the lab's queue
// rates: every message must arrive whole, on its port, in order.
// BenchmarkBMv2InbandLatency measures their latency.
func TestBMv2InbandConditions(t *testing.T) {
	ctx := testCtx(t)
	cli := privtest.Runs(t, lab.DefaultCLIBinary, "p4lang/behavioral-model", "--help")
	l := newInbandLab(t, ctx)
	for _, rates := range []string{"no rates", "lab rates"} {
		if rates == "lab rates" {
			setLabRates(t, ctx, l, cli)
		}
		for _, c := range inbandCases() {
			t.Run(rates+"/"+c.name, func(t *testing.T) {
				for i := range c.n {
					time.Sleep(c.gap)
					if _, _, err := l.exchange(ctx, i, c.both); err != nil {
						t.Fatalf("message %d: %v", i, err)
					}
				}
			})
		}
	}
}

// BenchmarkBMv2InbandLatency measures the in-band channel between two BMv2
// switches in each of inbandCases, without and then with the lab's queue
// rates: per message, the one-way latency (send -> B's stream) and the
// delivery latency (B's stream -> ReceivePacket), their means and 99th
// percentiles in µs. The idle gaps are outside the timed loop.
func BenchmarkBMv2InbandLatency(b *testing.B) {
	ctx := testCtx(b)
	cli := privtest.Runs(b, lab.DefaultCLIBinary, "p4lang/behavioral-model", "--help")
	l := newInbandLab(b, ctx)
	for _, rates := range []string{"no rates", "lab rates"} {
		if rates == "lab rates" {
			setLabRates(b, ctx, l, cli)
		}
		for _, c := range inbandCases() {
			b.Run(rates+"/"+c.name, func(b *testing.B) {
				var oneWay, deliver []time.Duration
				for i := range b.N {
					if c.gap > 0 {
						b.StopTimer()
						time.Sleep(c.gap)
						b.StartTimer()
					}
					o, d, err := l.exchange(ctx, i, c.both)
					if err != nil {
						b.Fatalf("message %d: %v", i, err)
					}
					oneWay, deliver = append(oneWay, o), append(deliver, d)
				}
				b.StopTimer()
				m, p := latencyStats(oneWay)
				dm, dp := latencyStats(deliver)
				b.ReportMetric(float64(m)/1e3, "oneway-mean-µs")
				b.ReportMetric(float64(p)/1e3, "oneway-p99-µs")
				b.ReportMetric(float64(dm)/1e3, "deliver-mean-µs")
				b.ReportMetric(float64(dp)/1e3, "deliver-p99-µs")
			})
		}
	}
}
