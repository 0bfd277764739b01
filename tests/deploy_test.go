package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The parts of Kubernetes objects that deploy/kubernetes uses. Decoding
// with KnownFields refuses any other field, so a misspelt key (say
// completionmode) fails the test instead of being ignored, as the API
// server would ignore it.
type (
	k8sObject struct {
		APIVersion string  `yaml:"apiVersion"`
		Kind       string  `yaml:"kind"`
		Metadata   k8sMeta `yaml:"metadata"`
		Spec       k8sSpec `yaml:"spec"`
	}
	k8sMeta struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	}
	// k8sSpec is a Job's spec or a PersistentVolumeClaim's.
	k8sSpec struct {
		CompletionMode string       `yaml:"completionMode"`
		Completions    *int         `yaml:"completions"`
		Parallelism    *int         `yaml:"parallelism"`
		BackoffLimit   *int         `yaml:"backoffLimit"`
		Template       k8sTemplate  `yaml:"template"`
		AccessModes    []string     `yaml:"accessModes"`
		Resources      k8sResources `yaml:"resources"`
	}
	k8sTemplate struct {
		Metadata k8sMeta `yaml:"metadata"`
		Spec     k8sPod  `yaml:"spec"`
	}
	k8sPod struct {
		RestartPolicy   string         `yaml:"restartPolicy"`
		SecurityContext k8sSecurity    `yaml:"securityContext"`
		Containers      []k8sContainer `yaml:"containers"`
		Volumes         []k8sVolume    `yaml:"volumes"`
	}
	// k8sSecurity is a pod's or a container's security context.
	k8sSecurity struct {
		RunAsNonRoot             *bool          `yaml:"runAsNonRoot"`
		RunAsUser                *int           `yaml:"runAsUser"`
		RunAsGroup               *int           `yaml:"runAsGroup"`
		FSGroup                  *int           `yaml:"fsGroup"`
		SeccompProfile           map[string]any `yaml:"seccompProfile"`
		AllowPrivilegeEscalation *bool          `yaml:"allowPrivilegeEscalation"`
		ReadOnlyRootFilesystem   *bool          `yaml:"readOnlyRootFilesystem"`
		Capabilities             map[string]any `yaml:"capabilities"`
	}
	k8sContainer struct {
		Name            string       `yaml:"name"`
		Image           string       `yaml:"image"`
		Args            []string     `yaml:"args"`
		Env             []k8sEnv     `yaml:"env"`
		WorkingDir      string       `yaml:"workingDir"`
		Resources       k8sResources `yaml:"resources"`
		SecurityContext k8sSecurity  `yaml:"securityContext"`
		VolumeMounts    []k8sMount   `yaml:"volumeMounts"`
	}
	k8sEnv struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom struct {
			FieldRef struct {
				FieldPath string `yaml:"fieldPath"`
			} `yaml:"fieldRef"`
		} `yaml:"valueFrom"`
	}
	k8sResources struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	}
	k8sMount struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	}
	k8sVolume struct {
		Name                  string         `yaml:"name"`
		PersistentVolumeClaim *k8sClaimRef   `yaml:"persistentVolumeClaim"`
		EmptyDir              map[string]any `yaml:"emptyDir"`
	}
	k8sClaimRef struct {
		ClaimName string `yaml:"claimName"`
	}
)

// readManifest decodes the one object of deploy/kubernetes/name, refusing
// fields k8sObject does not know.
func readManifest(t *testing.T, name string) k8sObject {
	t.Helper()
	file := filepath.Join("..", "deploy", "kubernetes", name)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var obj k8sObject
	if err := dec.Decode(&obj); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return obj
}

// flagValue returns the value of the flag name in args ("--name value" or
// "--name=value"), and whether it is there.
func flagValue(args []string, name string) (string, bool) {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v, true
		}
		if a == name && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

// indexVar is how a pod's args name its completion index: Kubernetes
// expands $(NAME) of an environment variable declared in the container.
const indexVar = "$(JOB_COMPLETION_INDEX)"

// TestKubernetesManifests checks deploy/kubernetes structurally (nothing
// here runs Kubernetes): the claim is ReadWriteMany; the eval Job is an
// Indexed batch/v1 Job whose completions are the N of --shard env/N, whose
// pods write part-$(JOB_COMPLETION_INDEX).json onto the claim, with the
// variable declared; the merge Job reads exactly part-0 to part-(N-1) from
// the same claim; every pod runs as non-root.
func TestKubernetesManifests(t *testing.T) {
	pvc := readManifest(t, "pvc.yaml")
	if pvc.APIVersion != "v1" || pvc.Kind != "PersistentVolumeClaim" || pvc.Metadata.Name == "" {
		t.Errorf("pvc.yaml: %s %s %q, want a named v1 PersistentVolumeClaim", pvc.APIVersion, pvc.Kind, pvc.Metadata.Name)
	}
	if !slices.Contains(pvc.Spec.AccessModes, "ReadWriteMany") {
		t.Errorf("pvc.yaml: access modes %v: the pods of the Indexed Job write to it at once, so it must be ReadWriteMany", pvc.Spec.AccessModes)
	}

	eval := readManifest(t, "eval-job.yaml")
	c, parts := checkJob(t, "eval-job.yaml", eval, pvc.Metadata.Name)
	if eval.Spec.CompletionMode != "Indexed" {
		t.Errorf("eval-job.yaml: completionMode %q, want Indexed", eval.Spec.CompletionMode)
	}
	n, p := 0, 0
	if eval.Spec.Completions != nil {
		n = *eval.Spec.Completions
	}
	if eval.Spec.Parallelism != nil {
		p = *eval.Spec.Parallelism
	}
	if n < 1 || p < 1 || p > n {
		t.Errorf("eval-job.yaml: completions %d and parallelism %d (0: missing): want N ≥ 1 and 1 ≤ P ≤ N", n, p)
	}
	if len(c.Args) == 0 || c.Args[0] != "eval" {
		t.Errorf("eval-job.yaml: args %v do not run graphcc eval", c.Args)
	}
	if shard, _ := flagValue(c.Args, "--shard"); shard != "env/"+strconv.Itoa(n) {
		t.Errorf("eval-job.yaml: --shard %q, want env/%d (completions)", shard, n)
	}
	if j, _ := flagValue(c.Args, "--json"); j != path.Join(parts, "part-"+indexVar+".json") {
		t.Errorf("eval-job.yaml: --json %q, want %s/part-%s.json on the claim", j, parts, indexVar)
	}
	declared := slices.ContainsFunc(c.Env, func(e k8sEnv) bool {
		return e.Name == "JOB_COMPLETION_INDEX" &&
			e.ValueFrom.FieldRef.FieldPath == "metadata.annotations['batch.kubernetes.io/job-completion-index']"
	})
	if !declared {
		t.Errorf("eval-job.yaml: JOB_COMPLETION_INDEX is not declared from the completion-index annotation, so %s in args is not expanded", indexVar)
	}
	if w, _ := flagValue(c.Args, "--workers"); w == "" || w != c.Resources.Requests["cpu"] {
		t.Errorf("eval-job.yaml: --workers %q, want the CPU request %q", w, c.Resources.Requests["cpu"])
	}

	merge := readManifest(t, "merge-job.yaml")
	c, mparts := checkJob(t, "merge-job.yaml", merge, pvc.Metadata.Name)
	if len(c.Args) == 0 || c.Args[0] != "merge" {
		t.Fatalf("merge-job.yaml: args %v do not run graphcc merge", c.Args)
	}
	var want []string
	for i := range n {
		want = append(want, path.Join(mparts, "part-"+strconv.Itoa(i)+".json"))
	}
	i := slices.IndexFunc(c.Args, func(a string) bool { return strings.HasPrefix(a, "-") })
	if i < 0 {
		i = len(c.Args)
	}
	if got := c.Args[1:i]; !slices.Equal(got, want) {
		t.Errorf("merge-job.yaml: merges %v, want the %d parts of eval-job.yaml %v", got, n, want)
	}
	for _, f := range []string{"--json", "--out"} {
		if v, _ := flagValue(c.Args, f); !strings.HasPrefix(v, mparts+"/") {
			t.Errorf("merge-job.yaml: %s %q is not on the claim (%s)", f, v, mparts)
		}
	}
}

// checkJob checks what the two Jobs share: a batch/v1 Job of one
// container running an image as non-root, restarting never or on failure,
// with the claim mounted; it returns the container and the claim's mount
// path.
func checkJob(t *testing.T, file string, job k8sObject, claim string) (k8sContainer, string) {
	t.Helper()
	if job.APIVersion != "batch/v1" || job.Kind != "Job" {
		t.Errorf("%s: %s %s, want batch/v1 Job", file, job.APIVersion, job.Kind)
	}
	pod := job.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("%s: %d containers, want 1", file, len(pod.Containers))
	}
	c := pod.Containers[0]
	if c.Image == "" {
		t.Errorf("%s: no image", file)
	}
	if p := pod.RestartPolicy; p != "Never" && p != "OnFailure" {
		t.Errorf("%s: restartPolicy %q, want Never or OnFailure (a Job's)", file, p)
	}
	nonRoot := func(s k8sSecurity) bool { return s.RunAsNonRoot != nil && *s.RunAsNonRoot }
	if !nonRoot(pod.SecurityContext) && !nonRoot(c.SecurityContext) {
		t.Errorf("%s: runAsNonRoot is not true", file)
	}
	for _, s := range []k8sSecurity{pod.SecurityContext, c.SecurityContext} {
		if s.RunAsUser != nil && *s.RunAsUser == 0 {
			t.Errorf("%s: runAsUser 0", file)
		}
	}
	volume := ""
	for _, v := range pod.Volumes {
		if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == claim {
			volume = v.Name
		}
	}
	for _, m := range c.VolumeMounts {
		if volume != "" && m.Name == volume {
			return c, m.MountPath
		}
	}
	t.Fatalf("%s: the claim %s is not mounted in the container", file, claim)
	return c, ""
}

// instruction is one instruction of a Containerfile: its keyword (upper
// case) and the rest of its line.
type instruction struct{ op, args string }

// parseContainerfile splits a Containerfile into instructions, joining
// lines continued with a backslash and dropping comments.
func parseContainerfile(text string) []instruction {
	var out []instruction
	var cur strings.Builder
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") || trimmed == "" && cur.Len() == 0 {
			continue
		}
		if rest, ok := strings.CutSuffix(trimmed, "\\"); ok {
			cur.WriteString(rest + " ")
			continue
		}
		cur.WriteString(trimmed)
		op, args, _ := strings.Cut(strings.TrimSpace(cur.String()), " ")
		out = append(out, instruction{strings.ToUpper(op), strings.TrimSpace(args)})
		cur.Reset()
	}
	return out
}

var goDirective = regexp.MustCompile(`(?m)^go (\d+)\.(\d+)`)
var golangImage = regexp.MustCompile(`^golang:(\d+)\.(\d+)`)

// TestContainerfile checks deploy/Containerfile structurally (nothing here
// builds images): multi-stage, a builder of go.mod's Go or newer that builds
// graphcc with CGO_ENABLED=0, and a last stage on a minimal base that takes
// only the binary and runs it as a non-root user.
func TestContainerfile(t *testing.T) {
	data, err := os.ReadFile("../deploy/Containerfile")
	if err != nil {
		t.Fatal(err)
	}
	var stages [][]instruction
	var names []string
	for _, in := range parseContainerfile(string(data)) {
		if in.op == "FROM" {
			f := strings.Fields(in.args)
			name := ""
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				name = f[2]
			}
			stages, names = append(stages, []instruction{in}), append(names, name)
			continue
		}
		if len(stages) == 0 {
			t.Fatalf("Containerfile: %s before FROM", in.op)
		}
		stages[len(stages)-1] = append(stages[len(stages)-1], in)
	}
	if len(stages) < 2 {
		t.Fatalf("Containerfile: %d stage(s), want a build stage and a run stage", len(stages))
	}
	checkBuildStage(t, stages[0], names[0])
	checkRunStage(t, stages[len(stages)-1], names[0])
}

// checkBuildStage checks the first stage: a named golang image of go.mod's
// Go version or newer, building ./cmd/graphcc with CGO_ENABLED=0.
func checkBuildStage(t *testing.T, stage []instruction, name string) {
	t.Helper()
	if name == "" {
		t.Errorf("Containerfile: the build stage has no name (FROM … AS build)")
	}
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	want := goDirective.FindStringSubmatch(string(mod))
	got := golangImage.FindStringSubmatch(strings.Fields(stage[0].args)[0])
	if want == nil || got == nil {
		t.Errorf("Containerfile: build stage %q: want a golang:MAJOR.MINOR image (go.mod's go line: %v)", stage[0].args, want)
	} else if atoi(got[1]) < atoi(want[1]) || atoi(got[1]) == atoi(want[1]) && atoi(got[2]) < atoi(want[2]) {
		t.Errorf("Containerfile: build stage %q is older than go.mod's go %s.%s", stage[0].args, want[1], want[2])
	}
	static := slices.ContainsFunc(stage, func(in instruction) bool {
		return in.op == "RUN" && strings.Contains(in.args, "CGO_ENABLED=0") && strings.Contains(in.args, "go build") &&
			strings.Contains(in.args, "./cmd/graphcc")
	})
	if !static {
		t.Errorf("Containerfile: no RUN CGO_ENABLED=0 go build … ./cmd/graphcc in the build stage")
	}
}

// checkRunStage checks the last stage: a minimal base, only files copied
// from the build stage, a non-root USER, graphcc as the entry point.
func checkRunStage(t *testing.T, stage []instruction, build string) {
	t.Helper()
	base := strings.Fields(stage[0].args)[0]
	if !strings.Contains(base, "distroless/static") && base != "scratch" && !strings.HasPrefix(base, "busybox") {
		t.Errorf("Containerfile: run stage on %s, want distroless/static, scratch or busybox", base)
	}
	user := ""
	for _, in := range stage[1:] {
		switch in.op {
		case "USER":
			user = in.args
		case "COPY", "ADD":
			if !strings.HasPrefix(in.args, "--from="+build+" ") {
				t.Errorf("Containerfile: run stage %s %s: want only COPY --from=%s", in.op, in.args, build)
			}
		case "RUN":
			t.Errorf("Containerfile: RUN %s in the run stage, whose base has no shell", in.args)
		case "ENTRYPOINT":
			if !strings.Contains(in.args, "graphcc") {
				t.Errorf("Containerfile: ENTRYPOINT %s does not run graphcc", in.args)
			}
		}
	}
	if u, _, _ := strings.Cut(user, ":"); u == "" || u == "root" || u == "0" {
		t.Errorf("Containerfile: run stage USER %q, want a non-root user", user)
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// TestDeployScripts runs shellcheck, where it is installed (Debian's
// shellcheck; CI installs it), on the Slurm job scripts and CI's script.
func TestDeployScripts(t *testing.T) {
	scripts, err := filepath.Glob("../deploy/slurm/*")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no scripts in deploy/slurm (%v)", err)
	}
	for _, s := range scripts {
		if out, err := exec.Command("bash", "-n", s).CombinedOutput(); err != nil {
			t.Errorf("bash -n %s: %v\n%s", s, err, out)
		}
	}
	sc, err := exec.LookPath("shellcheck")
	if err != nil {
		t.Skip("needs shellcheck on PATH (Debian's shellcheck) to check the scripts beyond bash -n")
	}
	if out, err := exec.Command(sc, append(scripts, "../.ci/run")...).CombinedOutput(); err != nil {
		t.Errorf("shellcheck: %v\n%s", err, out)
	}
}

// TestKubernetesArgs runs the built graphcc with the arguments of each
// Job's container and --help: cobra parses every flag before it prints the
// help, so an unknown flag (a misspelt --seeds, say) fails here. While
// graphcc has no eval --shard or merge (issue 25's sharding, another
// change), the flags it lacks are left out, or the Job skipped.
func TestKubernetesArgs(t *testing.T) {
	bin := graphccBinary(t)
	help, err := exec.Command(bin, "eval", "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("graphcc eval --help: %v\n%s", err, help)
	}
	hasShard := bytes.Contains(help, []byte("--shard"))
	for _, file := range []string{"eval-job.yaml", "merge-job.yaml"} {
		args := readManifest(t, file).Spec.Template.Spec.Containers[0].Args
		if len(args) > 0 && args[0] == "merge" && !hasShard {
			t.Logf("%s: graphcc has no merge command yet: not run", file)
			continue
		}
		if !hasShard {
			args = withoutFlag(args, "--shard")
		}
		if out, err := exec.Command(bin, append(args, "--help")...).CombinedOutput(); err != nil {
			t.Errorf("%s: graphcc %s --help: %v\n%s", file, strings.Join(args, " "), err, out)
		}
	}
}

// withoutFlag returns args without the flag name and its value.
func withoutFlag(args []string, name string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == name:
			i++
		case strings.HasPrefix(args[i], name+"="):
		default:
			out = append(out, args[i])
		}
	}
	return out
}
