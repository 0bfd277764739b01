package hostgen

import (
	"testing"

	"graphcc/trace"
)

func TestSchedule(t *testing.T) {
	f := pairFabric(t)
	flows := []trace.Flow{
		{Src: 0, Dst: 1, Size: 10, Start: 5},
		{Src: 1, Dst: 0, Size: 10},
		{Src: 0, Dst: 1, Size: 10},
		{Src: 0, Dst: 1, Size: 10},
		{Src: 1, Dst: 0, Size: 10},
	}
	for _, base := range []uint32{0, 7, MaxFlows - uint32(len(flows))} {
		got, err := Schedule(f, flows, base)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range []uint16{10000, 10000, 10001, 10002, 10001} {
			if got[i].QP != base+uint32(i) || got[i].SPort != want || got[i].Flow != flows[i] {
				t.Errorf("base %d: flow %d: %+v, want qp %d sport %d", base, i, got[i], base+uint32(i), want)
			}
		}
	}
	if _, err := Schedule(f, flows, MaxFlows-uint32(len(flows))+1); err == nil {
		t.Error("a schedule past the last queue pair accepted")
	}
	for _, bad := range []trace.Flow{
		{Src: 0, Dst: 0, Size: 1},
		{Src: 0, Dst: 2, Size: 1}, // a switch
		{Src: 0, Dst: 9, Size: 1},
		{Src: 0, Dst: 1, Size: 0},
		{Src: 0, Dst: 1, Size: 1, Start: -1},
	} {
		if _, err := Schedule(f, []trace.Flow{bad}, 0); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	many := make([]trace.Flow, 0x10000-firstSPort+1)
	for i := range many {
		many[i] = trace.Flow{Src: 0, Dst: 1, Size: 1}
	}
	if _, err := Schedule(f, many, 0); err == nil {
		t.Error("more flows than source ports accepted")
	}
}
