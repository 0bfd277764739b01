package policy

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
)

// TestFloorSpec: floor specs are named in one form, and every way one can
// be wrong is an error naming what is wrong.
func TestFloorSpec(t *testing.T) {
	for spec, want := range map[string]string{
		"floor:0.10:static:2,32,.01":                          "floor:0.1:static:2,32,0.01@graphcc",
		"floor:-Inf:static":                                   "floor:-inf:static@graphcc",
		"floor:+inf:static:0.5,32,0.125+dcqcn:55,55,2,5,25.0": "floor:inf:static:0.5,32,0.125+dcqcn:55,55,2,5,25@graphcc",
		"floor:5:edge:2,32,0.01:16,64,0.50@graphcc":           "floor:5:edge:2,32,0.01:16,64,0.5@graphcc",
		"floor:30/10.0:static":                                "floor:30/10:static@graphcc",
		"floor:5/5:static":                                    "floor:5:static@graphcc",
		"floor:5/5/0:static":                                  "floor:5/5/0:static@graphcc",
		"floor:5/+Inf/2000us:static":                          "floor:5/inf/2ms:static@graphcc",
		"floor:-inf/-inf/5ms:static":                          "floor:-inf/-inf/5ms:static@graphcc",
	} {
		np, err := Parse(context.Background(), spec, Env{})
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		if np.Name != want || Canonical(spec) != want {
			t.Errorf("%s named %q (Canonical %q), want %q", spec, np.Name, Canonical(spec), want)
		}
	}
	for spec, want := range map[string]string{
		"floor":                              "want MARGIN:BASE",
		"floor:1":                            "want MARGIN:BASE",
		"floor:x:static":                     `margin "x" is not a number`,
		"floor:nan:static":                   `margin "nan" is not a number`,
		"floor:1:":                           `base ""`,
		"floor:1/x:static":                   `host margin "x" is not a number`,
		"floor:1/nan:static":                 `host margin "nan"`,
		"floor:1/2/3ms/4:static":             `gates "1/2/3ms/4"`,
		"floor:1/1/abc:static":               "link hold abc",
		"floor:1/1/-1ms:static":              "link hold -1ms",
		"floor:1:graphcc":                    `base "graphcc"`,
		"floor:1:floor:1:static":             `base "floor:1:static"`,
		"floor:1:bogus":                      `base: unknown ECN policy "bogus"`,
		"floor:1:ideal":                      `base: unknown ECN policy "ideal"`,
		"floor:1:static:1,2":                 "base: static:1,2: want 3",
		"floor:1:static@graphcc:/no/such":    "model: graphcc:/no/such",
		"floor:1:static@graphccx":            `model "graphccx"`,
		"floor:1:static@graphcc:switch":      `model "graphcc:switch": want graphcc (the built-in switch-only model), graphcc:bare, graphcc:bare-switch or graphcc:FILE`,
		"floor:1:static+dcqcn:1,2@graphcc":   "base: static+dcqcn:1,2",
		"floor:1:static@graphcc+dcqcn:1,2,3": "model",
	} {
		_, err := Parse(context.Background(), spec, Env{})
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "usage: floor:MARGIN") {
			t.Errorf("%s: err %v, want one containing %q and the usage", spec, err, want)
		}
	}
}

// TestFloorRunsAsItsBounds: in the simulator floor:inf runs byte for byte
// as its base and floor:-inf as its model when the base starts the ports
// where the model does (static, Alibaba's thresholds); a finite margin
// runs otherwise than both.
func TestFloorRunsAsItsBounds(t *testing.T) {
	base := "static:2,32,0.01+dcqcn:" + fbHosts
	if a, b := runSpec(t, "floor:inf:"+base, false), runSpec(t, base, false); !bytes.Equal(a.bytes, b.bytes) {
		t.Errorf("floor:inf:%s runs otherwise than %s", base, base)
	}
	model, static := runSpec(t, "graphcc:bare-switch", false), runSpec(t, "static", false)
	if bytes.Equal(model.bytes, static.bytes) {
		t.Fatal("graphcc:bare-switch runs as static: the test shows nothing")
	}
	if a := runSpec(t, "floor:-inf:static", false); !bytes.Equal(a.bytes, model.bytes) {
		t.Error("floor:-inf:static runs otherwise than graphcc:bare-switch")
	}
	hosts := "@graphcc:../models/graphcc-hosts.model"
	if a, b := runSpec(t, "floor:inf:"+base+hosts, false), runSpec(t, base, false); !bytes.Equal(a.bytes, b.bytes) {
		t.Errorf("floor:inf:%s with a host head runs otherwise than %s", base+hosts, base)
	}
	if a, b := runSpec(t, "floor:-inf:static"+hosts, false), runSpec(t, hosts[1:], false); !bytes.Equal(a.bytes, b.bytes) {
		t.Errorf("floor:-inf:static%s runs otherwise than %s", hosts, hosts[1:])
	}
	mid := runSpec(t, "floor:10:static", false)
	if slices.Equal(mid.fct, model.fct) || slices.Equal(mid.fct, static.fct) {
		t.Error("floor:10:static runs as one of its bounds: the gate passes every port or none")
	}
}
