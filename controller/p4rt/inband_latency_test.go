package p4rt

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"graphcc/controller/lab"
	"graphcc/internal/privtest"
)

// inbandGapMessages is how many messages each idle-gap case of
// TestBMv2InbandLatency sends.
const inbandGapMessages = 40

// TestBMv2InbandLatency logs the one-way PacketOut -> PacketIn latency
// (from the send's start to B's stream receiving it) between two BMv2
// switches in the conditions an agent's round meets: messages back to
// back, messages after an idle gap (an agent sends a step's messages after
// seconds of silence), both directions at once (a round), and each of
// those with the lab's queue rates of a 100 Gbps port at scale 40000 (the
// data queues at 298 packets/s, the control queue at 5208). Every message
// must arrive whole, on its port, in order.
func TestBMv2InbandLatency(t *testing.T) {
	ctx := testCtx(t)
	cli := privtest.Runs(t, lab.DefaultCLIBinary, "p4lang/behavioral-model", "--help")
	l := newInbandLab(t, ctx)
	run := func(name string, gap time.Duration, n int, both bool) {
		var oneWay, deliver []time.Duration
		for i := range n {
			if gap > 0 {
				time.Sleep(gap)
			}
			want := inbandPayload(i)
			t0 := time.Now()
			if err := l.a.SendPacket(ctx, l.aToB, want); err != nil {
				t.Fatal(err)
			}
			if both {
				if err := l.b.SendPacket(ctx, l.bFromA, want); err != nil {
					t.Fatal(err)
				}
			}
			got, err := l.b.ReceivePacket(ctx)
			if err != nil || got.Port != l.bFromA || !bytes.Equal(got.Payload, want) {
				t.Fatalf("%s: message %d: PacketIn on port %d with %q, %v", name, i, got.Port, got.Payload, err)
			}
			oneWay = append(oneWay, got.At.Sub(t0))
			deliver = append(deliver, time.Since(got.At))
			if both {
				if got, err := l.a.ReceivePacket(ctx); err != nil || !bytes.Equal(got.Payload, want) {
					t.Fatalf("%s: message %d back: %q, %v", name, i, got.Payload, err)
				}
			}
		}
		m, p := latencyStats(oneWay)
		dm, dp := latencyStats(deliver)
		t.Logf("%-28s %3d messages: send -> B's stream mean %v p99 %v; stream -> ReceivePacket mean %v p99 %v", name, n, m.Round(time.Microsecond), p.Round(time.Microsecond), dm.Round(time.Microsecond), dp.Round(time.Microsecond))
	}
	cases := func(tag string) {
		run(tag+" back to back", 0, inbandMessages, false)
		run(tag+" both ways", 0, inbandMessages, true)
		run(tag+" after 20 ms idle", 20*time.Millisecond, inbandGapMessages, false)
		run(tag+" after 200 ms idle", 200*time.Millisecond, inbandGapMessages/4, false)
	}
	cases("no rates:")
	for _, thrift := range []int{l.thriftA, l.thriftB} {
		cmds := fmt.Sprintf("set_queue_rate 298 1\nset_queue_rate 5208 1 %d\n", lab.PriorityQueues-1)
		if err := runThriftCLI(ctx, l.ns, cli, thrift, cmds); err != nil {
			t.Fatal(err)
		}
	}
	cases("lab rates:")
}
