package trace

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"graphcc/topo"
)

func TestFCTRoundTrip(t *testing.T) {
	recs := []FCT{
		{Src: 0, Dst: 23, SPort: 10000, DPort: 100, Size: 1000, Start: 2 * topo.Second, FCT: 9_200 * topo.Nanosecond, Standalone: 9_135 * topo.Nanosecond},
		{Src: 12_345_678, Dst: 99_999_999, SPort: 0, DPort: 200, Size: 64000, Start: 0, FCT: 999, Standalone: 1},
		{Src: 100_000_000, Dst: 9_999_999, SPort: 65535, DPort: 65535, Size: math.MaxInt64, Start: math.MaxInt64, FCT: 1, Standalone: 1500},
	}
	var buf bytes.Buffer
	if err := WriteFCT(&buf, recs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	for i, want := range []string{
		"0 23 10000 100 1000 2000000000 9200 9135",
		"012345678 099999999 0 200 64000 0 1 1",
		"100000000 9999999 65535 65535 9223372036854775807 9223372036854775 1 1",
	} {
		if lines[i] != want {
			t.Errorf("line %d = %q, want %q", i+1, lines[i], want)
		}
	}
	got, err := ReadFCT(&buf, "fct.txt")
	if err != nil {
		t.Fatal(err)
	}
	// Times come back truncated to whole nanoseconds, a positive FCT under
	// 1 ns as 1 ns.
	want := slices.Clone(recs)
	for i := range want {
		want[i].Start -= want[i].Start % topo.Nanosecond
		for _, t := range []*int64{&want[i].FCT, &want[i].Standalone} {
			*t = max(*t-*t%topo.Nanosecond, topo.Nanosecond)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
	// What ReadFCT would refuse is not written.
	good := FCT{Src: 0, Dst: 1, Size: 1, FCT: 1, Standalone: 1}
	for _, bad := range []func(*FCT){
		func(r *FCT) { r.FCT = -1 },
		func(r *FCT) { r.FCT = 0 },
		func(r *FCT) { r.Standalone = 0 },
		func(r *FCT) { r.Size = 0 },
		func(r *FCT) { r.Dst = r.Src },
	} {
		r := good
		bad(&r)
		if err := WriteFCT(&bytes.Buffer{}, []FCT{r}); err == nil {
			t.Errorf("%+v written", r)
		}
	}
	if err := WriteFCT(&bytes.Buffer{}, []FCT{good}); err != nil {
		t.Error(err)
	}
}

func TestReadFCTHPCC(t *testing.T) {
	for id, ip := range map[uint32]uint32{0: 0x0b000001, 1: 0x0b000101, 255: 0x0b00ff01, 256: 0x0b010001, 65535: 0x0bffff01} {
		if got := nodeIDToIP(id); got != ip {
			t.Errorf("nodeIDToIP(%d) = %08x, want %08x", id, got, ip)
		}
	}
	// Lines as HPCC's qp_finish prints them ("%08x %08x %u %u %lu %lu %lu %lu").
	in := "0b000201 0b000101 10000 100 200000000 2000000000 16172834 16008800\n" +
		"0b010001 0B00FF01 10001 200 64000 2001000000 40000 28800\n"
	got, err := ReadFCT(strings.NewReader(in), "hpcc")
	if err != nil {
		t.Fatal(err)
	}
	want := []FCT{
		{Src: 2, Dst: 1, SPort: 10000, DPort: 100, Size: 200000000, Start: 2 * topo.Second, FCT: 16172834 * topo.Nanosecond, Standalone: 16008800 * topo.Nanosecond},
		{Src: 256, Dst: 255, SPort: 10001, DPort: 200, Size: 64000, Start: 2001 * topo.Millisecond, FCT: 40 * topo.Microsecond, Standalone: 28800 * topo.Nanosecond},
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestReadFCTErrors(t *testing.T) {
	const ok = "1 2 10000 100 1000 2000000000 9200 9135"
	for _, tc := range []struct{ name, in, want string }{
		{"fields", "1 2 3\n", "x:1: want 8 fields"},
		{"fields 9", ok + " 5\n", "x:1: want 8 fields"},
		{"bad src", "a 2 10000 100 1000 2000000000 9200 9135\n", `x:1: bad src "a"`},
		{"negative dst", "1 -2 10000 100 1000 2000000000 9200 9135\n", `x:1: bad dst "-2"`},
		{"not an HPCC IP", "0b000102 2 10000 100 1000 2000000000 9200 9135\n", "x:1: src 0b000102 is not an HPCC host IP"},
		{"not an HPCC IP 2", "1 0a000101 10000 100 1000 2000000000 9200 9135\n", "x:1: dst 0a000101 is not an HPCC host IP"},
		{"id too big", "1 2147483648 10000 100 1000 2000000000 9200 9135\n", `x:1: bad dst "2147483648": out of range`},
		{"sport", "\n" + ok + "\n1 2 65536 100 1000 2000000000 9200 9135\n", `x:3: bad sport "65536": out of range`},
		{"dport", "1 2 1 +100 1000 2000000000 9200 9135\n", `x:1: bad dport "+100"`},
		{"size", "1 2 1 100 1e3 2000000000 9200 9135\n", `x:1: bad size "1e3"`},
		{"start", "1 2 1 100 1000 2.5 9200 9135\n", `x:1: bad start_ns "2.5"`},
		{"fct", "1 2 1 100 1000 2 -9200 9135\n", `x:1: bad fct_ns "-9200"`},
		{"standalone overflow", "1 2 1 100 1000 2 9200 9223372036854776\n", `x:1: bad standalone_fct_ns "9223372036854776": out of range`},
		{"src is dst", "\n7 7 1 100 1000 2 9200 9135\n", "x:2: src and dst are both node 7: a flow runs between two hosts"},
		{"src is dst as IP", "0b000701 7 1 100 1000 2 9200 9135\n", "x:1: src and dst are both node 7"},
		{"size 0", "1 2 1 100 0 2 9200 9135\n", "x:1: size 0: a flow carries at least one byte"},
		{"fct 0", "1 2 1 100 1000 2 0 9135\n", "x:1: fct_ns 0: a completed flow took at least 1 ns"},
		{"standalone 0", "1 2 1 100 1000 2 9200 0\n", "x:1: standalone_fct_ns 0: a completed flow took at least 1 ns"},
		{"huge", "1 2 1 100 99999999999999999999 2 9200 9135\n", `x:1: bad size "99999999999999999999": value out of range`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadFCT(strings.NewReader(tc.in), "x")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestFCTSlowdown(t *testing.T) {
	for _, tc := range []struct {
		r    FCT
		want float64
	}{
		{FCT{FCT: 300, Standalone: 100}, 3},
		{FCT{FCT: 50, Standalone: 100}, 1},
		{FCT{FCT: 100, Standalone: 100}, 1},
		{FCT{FCT: 100, Standalone: 0}, 1},
	} {
		if got := tc.r.Slowdown(); got != tc.want {
			t.Errorf("%+v.Slowdown() = %v, want %v", tc.r, got, tc.want)
		}
	}
}

func TestFCTStandalone(t *testing.T) {
	f := clos24(t)
	// h0 -> h6 crosses a spine: base RTT 8 µs of delay + 2*320 ns + 2*80 ns
	// of 1000-byte serialization = 8.8 µs; the bottleneck is 25 Gbps.
	if rtt := f.BaseRTT(0, 6); rtt != 8800*topo.Nanosecond {
		t.Fatalf("BaseRTT(h0,h6) = %d", rtt)
	}
	for _, tc := range []struct {
		src, dst topo.NodeID
		size     int64
		want     int64
	}{
		{0, 6, 1, 8_800_000 + 49*8*40},           // 1 packet: 49 B at 40 ps/bit
		{0, 6, 1000, 8_800_000 + 1048*8*40},      // 335.36 ns
		{0, 6, 1001, 8_800_000 + (1001+96)*8*40}, // 2 packets
		{0, 6, 10_000_000, 8_800_000 + 10_480_000*8*40},
		{0, 1, 1000, f.BaseRTT(0, 1) + 1048*8*40}, // same leaf
	} {
		if got := Standalone(f, tc.src, tc.dst, tc.size, StandalonePayload, StandaloneHeader); got != tc.want {
			t.Errorf("Standalone(%d,%d,%d) = %d, want %d", tc.src, tc.dst, tc.size, got, tc.want)
		}
	}
	// In ns it is HPCC's qp_finish value: base_rtt + total_bytes*8e9/b.
	for size := int64(1); size < 300_000; size = size*3 + 7 {
		total := uint64(size + ((size-1)/1000+1)*48)
		hpcc := int64(8800 + total*8_000_000_000/uint64(25*topo.Gbps))
		if got := Standalone(f, 0, 6, size, 1000, 48) / topo.Nanosecond; got != hpcc {
			t.Errorf("size %d: %d ns, HPCC %d ns", size, got, hpcc)
		}
	}
	// No overflow for huge flows: 2^62 bytes at 25 Gbps.
	if got := Standalone(f, 0, 6, 1<<62, 1000, 48); got <= 0 {
		t.Errorf("huge flow: %d", got)
	}
	if got := Standalone(f, 0, 0, 1000, 1000, 48); got != math.MaxInt64 {
		t.Errorf("src == dst: %d, want MaxInt64 (no bottleneck)", got)
	}
}

func FuzzReadFCT(f *testing.F) {
	f.Add("0b000201 0b000101 10000 100 200000000 2000000000 16172834 16008800\n")
	f.Add("0 23 10000 100 1000 2000000000 9200 9135\n012345678 1 0 200 64000 0 1 1\n")
	f.Add("\n\n99999999 0 1 1 1 1 1 1\n")
	f.Fuzz(func(t *testing.T, in string) {
		recs, err := ReadFCT(strings.NewReader(in), "fuzz")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz:") {
				t.Fatalf("error without name: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := WriteFCT(&buf, recs); err != nil {
			t.Fatalf("write: %v", err)
		}
		again, err := ReadFCT(&buf, "again")
		if err != nil {
			t.Fatalf("re-read: %v\n%s", err, buf.String())
		}
		if !slices.Equal(recs, again) {
			t.Fatalf("round trip: %+v != %+v", again, recs)
		}
	})
}
