package hostgen

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"graphcc/dcqcn"
	"graphcc/trace"
)

func TestSetDCQCNErrors(t *testing.T) {
	f := pairFabric(t)
	h, err := NewHost(HostConfig{Node: 0, Fabric: f, Iface: "e", FabricMAC: net.HardwareAddr(macF[:]), IP: ipA})
	if err != nil {
		t.Fatal(err)
	}
	fast := dcqcn.DefaultParams(line)
	fast.IncreaseInterval = 55 * dcqcn.Microsecond
	for _, tc := range []struct {
		name string
		p    dcqcn.Params
		want string
	}{
		{"valid", fast, ""},
		{"invalid", dcqcnBad(), "dcqcn: G"},
		{"floor above line rate", dcqcnFloor(line + 1), "exceeds the line rate"},
	} {
		err := h.SetDCQCN(tc.p, 0)
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if got := h.DCQCN(); got != fast {
		t.Errorf("constants %+v after the valid change, want %+v", got, fast)
	}
}

// cnpAll hands every active flow of h a CNP at now, as handle does.
func cnpAll(h *Host, now int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.tx == nil {
		return
	}
	for _, i := range h.tx.active {
		h.tx.onCNP(now, h.tx.flows[i].QP)
	}
}

// TestSetDCQCNWhileRunning changes both hosts' constants over and over
// while they send to each other and get CNPs (run it with -race): the
// flows slow down and recover, and every flow still completes, every byte delivered once.
func TestSetDCQCNWhileRunning(t *testing.T) {
	f := pairFabric(t)
	flows, err := Schedule(f, []trace.Flow{
		{Src: 0, Dst: 1, Size: 300_000, Start: 0, DPort: 100},
		{Src: 1, Dst: 0, Size: 200_000, Start: 0, DPort: 100},
		{Src: 0, Dst: 1, Size: 100_000, Start: 20 * us, DPort: 200},
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	ca, cb := connPair(t)
	hosts := pairHosts(t, f)
	clock, err := NewClock(time.Now(), 100)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 2)
	for i, c := range []*Conn{ca, cb} {
		go func() { errc <- hosts[i].run(ctx, c, [6]byte{2, 0, 0, 0, 0, byte(i)}, flows, clock) }()
	}
	fast := dcqcn.DefaultParams(line)
	fast.IncreaseInterval = 55 * dcqcn.Microsecond
	sets := []dcqcn.Params{dcqcn.DefaultParams(line), fast}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for k := 0; ctx.Err() == nil; k++ {
			for _, h := range hosts {
				cnpAll(h, clock.Now()) // as a marking switch would: the senders' DCQCN runs

				if err := h.SetDCQCN(sets[k%2], clock.Now()); err != nil {
					t.Error(err)
					return
				}
			}
			time.Sleep(50 * time.Microsecond)
		}
	}()
	for i, h := range hosts {
		select {
		case <-h.Done():
		case err := <-errc:
			t.Fatalf("a host stopped: %v", err)
		case <-time.After(2 * time.Minute): // a hang guard, not a measurement
			t.Fatalf("host %d not done: %+v", i, h.Stats())
		}
	}
	cancel()
	wg.Wait()
	for range hosts {
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}
	checkHosts(t, flows, hosts)
}
