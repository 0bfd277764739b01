package control

import (
	"math"
	"testing"

	"graphcc/topo"
)

func TestECNValidate(t *testing.T) {
	tests := []struct {
		e  ECN
		ok bool
	}{
		{ECN{KMin: 100 * KB, KMax: 400 * KB, PMax: 0.2}, true},
		{ECN{KMin: 0, KMax: 0, PMax: 1}, true},
		{ECN{KMin: -1, KMax: 10, PMax: 0.5}, false},
		{ECN{KMin: 20, KMax: 10, PMax: 0.5}, false},
		{ECN{KMin: 1, KMax: 10, PMax: 1.5}, false},
		{ECN{KMin: 1, KMax: 10, PMax: -0.1}, false},
		{ECN{KMin: 1, KMax: 10, PMax: math.NaN()}, false},
	}
	for _, tt := range tests {
		if err := tt.e.Validate(); (err == nil) != tt.ok {
			t.Errorf("%+v: Validate() = %v, want ok=%v", tt.e, err, tt.ok)
		}
	}
}

func TestECNProb(t *testing.T) {
	e := ECN{KMin: 100, KMax: 500, PMax: 0.4}
	for _, tt := range []struct {
		q    int64
		want float64
	}{{0, 0}, {100, 0}, {300, 0.2}, {500, 0.4}, {501, 1}} {
		if got := e.Prob(tt.q); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Prob(%d) = %v, want %v", tt.q, got, tt.want)
		}
	}
	if got := (ECN{KMin: 5, KMax: 5, PMax: 0.3}).Prob(6); got != 1 {
		t.Errorf("kmin == kmax: Prob above = %v, want 1", got)
	}
}

func TestAlibabaScalesWithRate(t *testing.T) {
	for _, tt := range []struct {
		rate       int64
		kmin, kmax int64
	}{
		{25 * topo.Gbps, 100_000, 400_000},
		{50 * topo.Gbps, 200_000, 800_000},
		{100 * topo.Gbps, 400_000, 1_600_000},
	} {
		e := Alibaba(tt.rate)
		if e.KMin != tt.kmin || e.KMax != tt.kmax || e.PMax != 0.2 {
			t.Errorf("Alibaba(%d) = %+v", tt.rate, e)
		}
	}
}

func TestPortSampleFeatures(t *testing.T) {
	s := PortSample{TxBytes: 312_500, MarkedBytes: 31_250}
	for range 4 {
		s.EnqHist.Add(3)
	}
	dt := 100 * topo.Microsecond
	if u := s.Utilization(25*topo.Gbps, dt); math.Abs(u-1) > 1e-12 {
		t.Errorf("utilization %v, want 1", u)
	}
	if m := s.MarkingRate(25*topo.Gbps, dt); math.Abs(m-0.1) > 1e-12 {
		t.Errorf("marking rate %v, want 0.1", m)
	}
	if q := s.QueueFeature(); q != 3*QueuePacketBytes {
		t.Errorf("queue feature %v, want %v", q, 3*QueuePacketBytes)
	}
	if q := new(PortSample).QueueFeature(); q != 0 {
		t.Errorf("idle queue feature %v, want 0", q)
	}
}
