package policy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"graphcc/gnn"
	"graphcc/scenario"
)

// TestInputs: what each spec's runs depend on beyond its name, which
// evaluation part files record.
func TestInputs(t *testing.T) {
	dir := t.TempDir()
	model, err := gnn.EmbeddedFile()
	if err != nil {
		t.Fatal(err)
	}
	modelPath := filepath.Join(dir, "g.model")
	f, err := os.Create(modelPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := model.Write(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	b, _ := os.ReadFile(modelPath)
	sum := sha256.Sum256(b)
	modelDigest := "sha256:" + hex.EncodeToString(sum[:])
	tuned := filepath.Join(dir, "tuned")
	os.Mkdir(tuned, 0o755)
	for name, body := range map[string]string{
		"tuned/fb60-incast.json": `{"scenario": "fb60-incast", "best_policy": "static:2,32,0.010", "score": 2.97}`,
		"global.json":            `{"best_policy": "static:32,256,0.75+dcqcn:55,1,4,5,50"}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fb60, ws := scenario.Default(), scenario.Scenario{Name: "websearch60"}
	for _, tc := range []struct {
		spec string
		env  Env
		sc   scenario.Scenario
		want string // "" for no Inputs
		err  string
	}{
		{spec: "static", sc: fb60},
		{spec: "static:2,32,0.01+dcqcn:55,1,4,5,50", sc: fb60},
		{spec: "graphcc", sc: fb60, want: "tuned:joint=best_policy static:0.5,32,0.125+dcqcn:55,55,2,5,25"},
		{spec: "graphcc:switch", sc: fb60, want: "tuned:switch=best_policy static:"},
		{spec: "graphcc:bare", sc: fb60},
		{spec: "graphcc:bare-switch", sc: fb60},
		{spec: "ideal", sc: fb60},
		{spec: "graphcc:" + modelPath, sc: fb60, want: modelDigest},
		{spec: "acc", sc: fb60, want: fmt.Sprintf("trained on the scenario: 100 episodes, GOMAXPROCS %d", runtime.GOMAXPROCS(0))},
		{spec: "acc", env: Env{ACCEpisodes: 7}, sc: fb60, want: "trained on the scenario: 7 episodes, GOMAXPROCS"},
		{spec: "tuned:" + filepath.Join(dir, "global.json"), sc: ws, want: "best_policy static:32,256,0.75+dcqcn:55,1,4,5,50"},
		{spec: "tuned:" + tuned, sc: fb60, want: "best_policy static:2,32,0.01"},
		{spec: "tuned:" + tuned, sc: ws, err: filepath.Join(tuned, "websearch60.json")},
		{spec: "floor:1:static", sc: fb60},
		{spec: "floor:1:tuned:" + filepath.Join(dir, "global.json") + "@graphcc:" + modelPath, sc: ws,
			want: "tuned:" + filepath.Join(dir, "global.json") + "=best_policy static:32,256,0.75+dcqcn:55,1,4,5,50; graphcc:" + modelPath + "=" + modelDigest},
		{spec: "floor:1:tuned:" + tuned, sc: ws, err: filepath.Join(tuned, "websearch60.json")},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			np, err := Parse(context.Background(), tc.spec, tc.env)
			if err != nil {
				t.Fatal(err)
			}
			if np.Inputs == nil {
				if tc.want != "" || tc.err != "" {
					t.Fatalf("no Inputs, want %q", tc.want+tc.err)
				}
				return
			}
			got, err := np.Inputs(tc.sc)
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("err = %v, want one naming %q", err, tc.err)
				}
			case err != nil:
				t.Fatal(err)
			case tc.want == "":
				t.Errorf("Inputs = %q, want none", got)
			case !strings.HasPrefix(got, tc.want):
				t.Errorf("Inputs = %q, want %q", got, tc.want)
			}
		})
	}
}
