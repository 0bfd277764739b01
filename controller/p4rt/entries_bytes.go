package p4rt

import (
	"fmt"
	"math/bits"
)

// EncodeUint returns v as a P4Runtime canonical binary string: big-endian,
// the shortest string that holds v, one zero byte for 0 (P4Runtime 1.4
// §8.3; BMv2's server answers reads in this form, so entries written with
// it read back equal).
func EncodeUint(v uint64) []byte {
	n := max(1, (bits.Len64(v)+7)/8)
	b := make([]byte, n)
	for i := n - 1; i >= 0; i-- {
		b[i] = byte(v)
		v >>= 8
	}
	return b
}

// DecodeUint reads a P4Runtime binary string holding an unsigned value of
// width bits (at most 64). Leading zero bytes are allowed, as the
// specification requires of a receiver; an empty string or a value that
// does not fit is an error.
func DecodeUint(b []byte, width int) (uint64, error) {
	if len(b) == 0 {
		return 0, fmt.Errorf("empty bytestring")
	}
	var v uint64
	for _, c := range b {
		if v>>56 != 0 {
			return 0, fmt.Errorf("bytestring %x: more than 64 bits", b)
		}
		v = v<<8 | uint64(c)
	}
	if width < 64 && v>>width != 0 {
		return 0, fmt.Errorf("bytestring %x: does not fit in %d bits", b, width)
	}
	return v, nil
}
