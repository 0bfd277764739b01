package learn

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"graphcc/gnn"
	"graphcc/internal/fileio"
)

// A checkpoint file stores a training run between two rounds of episodes,
// laid out like a model file:
//
//	magic    "GRAPHCC-CHECKPOINT\n"        19 bytes
//	version  uint32, little-endian        CheckpointVersion
//	hlen     uint32, little-endian        length of the header
//	header   hlen bytes of JSON           checkpointHeader, as json.Marshal writes it
//	stats    7 float64s per round         Episode, Epsilon, MeanReward, Loss, Updates, Slowdown, Validation
//	online   Params float64s              the network being trained
//	target   Params float64s              the target network
//	adam m   Params float64s              Adam's first moments
//	adam v   Params float64s              Adam's second moments
//	best     Params float64s              the best validated weights (zeros without validation)
//	         2 float64s                   their episode (-1: none) and validation slowdown
//	buffer   the replay buffer's Len() transitions in slot order: features
//	         and next features (float32s), actions (uint8s), rewards (float32s),
//	         then, if the header's buffer lists fabrics, each transition's
//	         fabric (uint16s, indices in that list)
//	crc      uint32, little-endian        CRC-32 (IEEE) of every byte before it
//
// Numbers are little-endian IEEE 754 bits. Nothing follows the checksum.
const (
	CheckpointMagic   = "GRAPHCC-CHECKPOINT\n"
	CheckpointVersion = 1
)

// ErrCheckpoint is wrapped by the errors of reading or resuming from a
// checkpoint that is malformed or belongs to another run.
var ErrCheckpoint = errors.New("bad checkpoint")

// Checkpoint is the whole state of a training run after a round of
// episodes: with the same Config, Train resumed from it (Config.
// Resume) ends with the very weights and statistics of the run that wrote
// it had it not stopped.
//
// A Checkpoint that Train hands to Config.Checkpoint shares the run's
// replay buffer and is valid only during that call: save it there.
type Checkpoint struct {
	// Config are the run's settings (every Config field that shapes
	// the weights), by name; Train refuses to resume under other ones.
	Config map[string]string
	// Meta is the caller's (Config.CheckpointMeta): the command line,
	// the scenario. Train does not read it.
	Meta map[string]string

	Episodes int            // episodes done
	Updates  int            // minibatch updates done
	Stats    []EpisodeStats // one per round so far

	Online, Target []float64 // parameters
	AdamM, AdamV   []float64
	AdamT          int
	Root, Sampler  []byte // the PCG states of the episode seeds and of minibatch sampling
	Buffer         *ReplayBuffer

	// Best are the weights of the lowest validation slowdown so far,
	// BestValidation, after BestEpisode episodes (-1: none; Best is then
	// nil, or zeros as read from a file).
	Best           []float64
	BestEpisode    int
	BestValidation float64
}

// checkpointHeader is the JSON header of a checkpoint file.
type checkpointHeader struct {
	Config   map[string]string `json:"config"`
	Meta     map[string]string `json:"meta"`
	Episodes int               `json:"episodes"`
	Updates  int               `json:"updates"`
	Rounds   int               `json:"rounds"`
	Params   int               `json:"params"`
	AdamT    int               `json:"adam_t"`
	Root     []byte            `json:"root_rng"`
	Sampler  []byte            `json:"sampler_rng"`
	Buffer   bufferHeader      `json:"buffer"`
}

type bufferHeader struct {
	Cap        int   `json:"capacity"`
	FeatureLen int   `json:"feature_len"`
	Agents     int   `json:"agents"`
	Len        int   `json:"len"`
	Next       int   `json:"next"`
	Added      int64 `json:"added"`
	// Fabrics are the buffer's fabric tags (ReplayBuffer.Fabrics), written
	// only when there is more than the reference's.
	Fabrics []string `json:"fabrics,omitempty"`
}

// Limits on what a checkpoint header may ask to allocate.
const (
	maxCheckpointHeader = 1 << 20 // the JSON header, as a model file's
	maxCheckpointParams = 1 << 28
	maxCheckpointRounds = 1 << 24
	maxBufferFloats     = 1 << 34
)

// configFingerprint returns the settings of c that shape the weights, by
// name, for Checkpoint.Config.
func configFingerprint(c *Config) map[string]string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	i := strconv.Itoa
	params, err := json.Marshal(c.Params)
	if err != nil {
		params = []byte(err.Error())
	}
	m := map[string]string{
		"kind": c.Kind, "episodes": i(c.Episodes), "workers": i(c.Workers),
		"seed": strconv.FormatUint(c.Seed, 10), "episode_time_ps": strconv.FormatInt(c.EpisodeTime, 10),
		"interval_ps": strconv.FormatInt(c.Interval, 10), "gamma": f(c.Gamma), "lr": f(c.LR),
		"batch": i(c.Batch), "buffer": i(c.Buffer), "updates": i(c.Updates), "warmup": i(c.Warmup),
		"target_every": i(c.TargetEvery), "eps_start": f(c.EpsStart), "eps_end": f(c.EpsEnd),
		"eps_decay": f(c.EpsDecay), "max_grad_norm": f(c.MaxGradNorm), "reward": c.Shape.String(),
		"weight_q": f(c.WeightQ), "objective": c.Objective.String(), "queue_scale": f(c.Features.WithDefaults().QueueScale),
		"reward_queue": f(c.Features.WithDefaults().RewardQueue), "sim_params": string(params),
		"validate_seeds": fmt.Sprint(c.ValidateSeeds), "validate_every": i(c.ValidateEvery),
		"feature_set": c.FeatureSet.String(), "action_set": c.ActionSet.String(),
		"hosts": strconv.FormatBool(c.Hosts),
	}
	if !c.HostTable.IsGrid() { // absent for the grid, as in checkpoints written before profiles
		m["host_table"] = c.HostTable.Fingerprint()
	}
	if c.Objective == ImitateObjective { // absent otherwise, as in checkpoints written before teachers
		m["teacher"] = c.TeacherName
	}
	if len(c.ValidateSets) > 0 { // absent otherwise, as in checkpoints written before sets
		var sets []string
		for _, v := range c.ValidateSets {
			sets = append(sets, fmt.Sprintf("%s:%v", v.Name, v.Seeds))
		}
		m["validate_sets"] = strings.Join(sets, " ")
	}
	return m
}

// laterSetting returns the value that a checkpoint which does not record
// setting k had, for the settings of configFingerprint added after
// checkpoints were first written.
func laterSetting(k string) (string, bool) {
	switch k {
	case "feature_set":
		return gnn.FeaturesPaper.String(), true
	case "action_set":
		return gnn.ActionsPaper.String(), true
	case "hosts":
		return "false", true
	case "host_table":
		return gnn.HostTableID, true
	}
	return "", false
}

// checkResume returns an error naming every setting in which the
// checkpoint's run and this one differ.
func (ck *Checkpoint) checkResume(want map[string]string) error {
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	for k := range ck.Config {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var errs []error
	for _, k := range keys {
		got, ok := ck.Config[k]
		if !ok {
			got, ok = laterSetting(k)
		}
		if !ok {
			got = "(missing)"
		}
		if w, ok := want[k]; !ok || got != w {
			if !ok {
				w = "(not a setting of this build)"
			}
			errs = append(errs, fmt.Errorf("%s is %s in the checkpoint, %s in this run", k, got, w))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: it belongs to another run: %w", ErrCheckpoint, errors.Join(errs...))
	}
	return nil
}

// crcWriter writes through to w, hashes what it wrote and counts it;
// numbers go out in chunks of its scratch buffer.
type crcWriter struct {
	w   io.Writer
	crc hash.Hash32
	n   int64
	err error
	buf []byte
}

func (c *crcWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	c.crc.Write(p)
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}

// chunk is the scratch size of crcWriter and crcReader, in bytes.
const chunk = 1 << 16

// writeNums writes v, each number encoded by enc in size bytes.
func writeNums[T any](c *crcWriter, v []T, size int, enc func([]byte, T) []byte) {
	for len(v) > 0 {
		k := min(len(v), chunk/size)
		b := c.buf[:0]
		for _, x := range v[:k] {
			b = enc(b, x)
		}
		c.Write(b)
		v = v[k:]
	}
}

func (c *crcWriter) f64s(v []float64) {
	writeNums(c, v, 8, func(b []byte, x float64) []byte { return binary.LittleEndian.AppendUint64(b, math.Float64bits(x)) })
}

func (c *crcWriter) f32s(v []float32) {
	writeNums(c, v, 4, func(b []byte, x float32) []byte { return binary.LittleEndian.AppendUint32(b, math.Float32bits(x)) })
}

// statsLen is the number of float64s of a round's statistics in a file.
const statsLen = 7

func statsRow(s EpisodeStats) [statsLen]float64 {
	return [statsLen]float64{float64(s.Episode), s.Epsilon, s.MeanReward, s.Loss, float64(s.Updates), s.Slowdown, s.Validation}
}

// WriteTo writes the checkpoint file of ck to w.
func (ck *Checkpoint) WriteTo(w io.Writer) (int64, error) {
	n := len(ck.Online)
	if len(ck.Target) != n || len(ck.AdamM) != n || len(ck.AdamV) != n || ck.Buffer == nil || ck.Best != nil && len(ck.Best) != n {
		return 0, fmt.Errorf("write checkpoint: %d online, %d target, %d and %d Adam, %d best parameters, buffer %v",
			n, len(ck.Target), len(ck.AdamM), len(ck.AdamV), len(ck.Best), ck.Buffer != nil)
	}
	b := ck.Buffer
	h := checkpointHeader{
		Config: ck.Config, Meta: ck.Meta, Episodes: ck.Episodes, Updates: ck.Updates,
		Rounds: len(ck.Stats), Params: n, AdamT: ck.AdamT, Root: ck.Root, Sampler: ck.Sampler,
		Buffer: bufferHeader{Cap: b.cap, FeatureLen: b.featLen, Agents: b.agents, Len: b.n, Next: b.next, Added: b.added},
	}
	if len(b.fabrics) > 1 {
		h.Buffer.Fabrics = b.fabrics
	}
	hdr, err := json.Marshal(&h)
	if err != nil {
		return 0, fmt.Errorf("write checkpoint header: %w", err)
	}
	cw := &crcWriter{w: w, crc: crc32.NewIEEE(), buf: make([]byte, 0, chunk)}
	cw.Write([]byte(CheckpointMagic))
	var u32 [4]byte
	binary.LittleEndian.PutUint32(u32[:], CheckpointVersion)
	cw.Write(u32[:])
	binary.LittleEndian.PutUint32(u32[:], uint32(len(hdr)))
	cw.Write(u32[:])
	cw.Write(hdr)
	for _, s := range ck.Stats {
		row := statsRow(s)
		cw.f64s(row[:])
	}
	cw.f64s(ck.Online)
	cw.f64s(ck.Target)
	cw.f64s(ck.AdamM)
	cw.f64s(ck.AdamV)
	if ck.Best != nil {
		cw.f64s(ck.Best)
	} else {
		cw.f64s(make([]float64, n))
	}
	cw.f64s([]float64{float64(ck.BestEpisode), ck.BestValidation})
	cw.f32s(b.feat[:b.n*b.featLen])
	cw.f32s(b.nextFeat[:b.n*b.featLen])
	cw.Write(b.actions[:b.n*b.agents])
	cw.f32s(b.rewards[:b.n*b.agents])
	if len(b.fabrics) > 1 {
		tags := make([]byte, 2*b.n)
		for i, k := range b.fab[:b.n] {
			binary.LittleEndian.PutUint16(tags[2*i:], k)
		}
		cw.Write(tags)
	}
	if cw.err != nil {
		return cw.n, fmt.Errorf("write checkpoint: %w", cw.err)
	}
	binary.LittleEndian.PutUint32(u32[:], cw.crc.Sum32())
	k, err := w.Write(u32[:])
	if err != nil {
		err = fmt.Errorf("write checkpoint: %w", err)
	}
	return cw.n + int64(k), err
}

// Save writes the checkpoint file of ck to path atomically (a temporary
// file in the same directory, synced, then renamed): path holds either its
// old contents or the whole new checkpoint.
func (ck *Checkpoint) Save(path string) error {
	err := fileio.WriteAtomic(path, func(w io.Writer) error {
		_, err := ck.WriteTo(w)
		return err
	})
	if err != nil {
		return fmt.Errorf("save checkpoint %s: %w", path, err)
	}
	return nil
}

// LoadCheckpoint reads the checkpoint file at path.
func LoadCheckpoint(path string) (*Checkpoint, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load checkpoint: %w", err)
	}
	defer f.Close()
	ck, err := ReadCheckpoint(bufio.NewReaderSize(f, 1<<16))
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return ck, nil
}

// crcReader reads from r and hashes what it read; numbers come in chunks
// of its scratch buffer.
type crcReader struct {
	r   io.Reader
	crc hash.Hash32
	err error
	buf []byte
}

// full reads exactly len(p) bytes; it records the first error, io.EOF
// becoming io.ErrUnexpectedEOF.
func (c *crcReader) full(p []byte) {
	if c.err != nil {
		return
	}
	if _, err := io.ReadFull(c.r, p); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		c.err = err
		return
	}
	c.crc.Write(p)
}

// readNums reads n numbers of size bytes each, decoded by dec. It grows
// the result as the data arrives, so a header that promises more than the
// input holds costs no more memory than the input.
func readNums[T any](c *crcReader, n, size int, dec func([]byte) T) []T {
	var v []T
	for len(v) < n && c.err == nil {
		b := c.buf[:size*min(n-len(v), chunk/size)]
		c.full(b)
		for i := 0; i < len(b) && c.err == nil; i += size {
			v = append(v, dec(b[i:]))
		}
	}
	return v
}

func (c *crcReader) f64s(n int) []float64 {
	return readNums(c, n, 8, func(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) })
}

func (c *crcReader) f32s(n int) []float32 {
	return readNums(c, n, 4, func(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) })
}

func (c *crcReader) bytes(n int) []byte {
	return readNums(c, n, 1, func(b []byte) byte { return b[0] })
}

// ReadCheckpoint reads a checkpoint file from r, to its end.
func ReadCheckpoint(r io.Reader) (*Checkpoint, error) {
	cr := &crcReader{r: r, crc: crc32.NewIEEE(), buf: make([]byte, chunk)}
	h, err := readCheckpointHeader(cr)
	if err != nil {
		return nil, err
	}
	if err := h.check(); err != nil {
		return nil, err
	}
	ck := &Checkpoint{
		Config: h.Config, Meta: h.Meta, Episodes: h.Episodes, Updates: h.Updates, AdamT: h.AdamT,
		Root: h.Root, Sampler: h.Sampler,
	}
	rows := cr.f64s(statsLen * h.Rounds)
	ck.Online = cr.f64s(h.Params)
	ck.Target = cr.f64s(h.Params)
	ck.AdamM = cr.f64s(h.Params)
	ck.AdamV = cr.f64s(h.Params)
	ck.Best = cr.f64s(h.Params)
	if be := cr.f64s(2); len(be) == 2 {
		ck.BestEpisode, ck.BestValidation = int(be[0]), be[1]
	}
	if cr.err != nil {
		return nil, fmt.Errorf("%w: truncated before the replay buffer: %w", ErrCheckpoint, cr.err)
	}
	raw := readBufferData(cr, h.Buffer)
	if cr.err != nil {
		return nil, fmt.Errorf("%w: truncated in the replay buffer: %w", ErrCheckpoint, cr.err)
	}
	if err := cr.checksum(); err != nil {
		return nil, err
	}
	if err := raw.check(h.Buffer); err != nil {
		return nil, err
	}
	ck.Stats = make([]EpisodeStats, h.Rounds)
	for i := range ck.Stats {
		r := rows[statsLen*i : statsLen*(i+1)]
		ck.Stats[i] = EpisodeStats{Episode: int(r[0]), Epsilon: r[1], MeanReward: r[2], Loss: r[3], Updates: int(r[4]), Slowdown: r[5], Validation: r[6]}
	}
	ck.Buffer = raw.buffer(h.Buffer)
	return ck, nil
}

// readCheckpointHeader reads a checkpoint file's magic, version and JSON
// header.
func readCheckpointHeader(cr *crcReader) (*checkpointHeader, error) {
	magic := make([]byte, len(CheckpointMagic))
	cr.full(magic)
	if cr.err != nil || string(magic) != CheckpointMagic {
		return nil, fmt.Errorf("%w: not a graphcc checkpoint file (magic %q)", ErrCheckpoint, magic)
	}
	var pre [8]byte
	cr.full(pre[:])
	if cr.err != nil {
		return nil, fmt.Errorf("%w: truncated in the version and header length: %w", ErrCheckpoint, cr.err)
	}
	if v := binary.LittleEndian.Uint32(pre[:4]); v != CheckpointVersion {
		return nil, fmt.Errorf("%w: version is %d, this build reads %d", ErrCheckpoint, v, CheckpointVersion)
	}
	hlen := binary.LittleEndian.Uint32(pre[4:])
	if hlen > maxCheckpointHeader {
		return nil, fmt.Errorf("%w: header length %d is over %d", ErrCheckpoint, hlen, maxCheckpointHeader)
	}
	hdr := make([]byte, hlen)
	cr.full(hdr)
	if cr.err != nil {
		return nil, fmt.Errorf("%w: truncated in the %d-byte header: %w", ErrCheckpoint, hlen, cr.err)
	}
	var h checkpointHeader
	dec := json.NewDecoder(bytes.NewReader(hdr))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("%w: header: %w", ErrCheckpoint, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: header: more than one JSON object", ErrCheckpoint)
	}
	return &h, nil
}

// check returns an error if h asks for sizes out of bounds or describes a
// replay buffer that cannot be.
func (h *checkpointHeader) check() error {
	bh := h.Buffer
	switch {
	case h.Params < 1 || h.Params > maxCheckpointParams:
		return fmt.Errorf("%w: header: params %d outside [1, %d]", ErrCheckpoint, h.Params, maxCheckpointParams)
	case h.Rounds < 0 || h.Rounds > maxCheckpointRounds:
		return fmt.Errorf("%w: header: rounds %d outside [0, %d]", ErrCheckpoint, h.Rounds, maxCheckpointRounds)
	case h.Episodes < 0 || h.Updates < 0 || h.AdamT < 0:
		return fmt.Errorf("%w: header: episodes %d, updates %d, adam_t %d must not be negative", ErrCheckpoint, h.Episodes, h.Updates, h.AdamT)
	case bh.Cap < 1 || bh.FeatureLen < 1 || bh.Agents < 1:
		return fmt.Errorf("%w: header: buffer capacity %d, feature_len %d and agents %d must be positive",
			ErrCheckpoint, bh.Cap, bh.FeatureLen, bh.Agents)
	case float64(bh.Cap)*float64(2*bh.FeatureLen+2*bh.Agents) > maxBufferFloats:
		return fmt.Errorf("%w: header: buffer of %d transitions of %d features is too large", ErrCheckpoint, bh.Cap, bh.FeatureLen)
	case bh.Len < 0 || bh.Len > bh.Cap || bh.Next < 0 || bh.Next >= bh.Cap || (bh.Len < bh.Cap && bh.Next != bh.Len) || bh.Added < int64(bh.Len):
		return fmt.Errorf("%w: header: buffer len %d, next %d, added %d do not fit capacity %d", ErrCheckpoint, bh.Len, bh.Next, bh.Added, bh.Cap)
	case len(bh.Fabrics) == 1 || len(bh.Fabrics) > maxFabrics || len(bh.Fabrics) > 0 && bh.Fabrics[0] != "":
		return fmt.Errorf("%w: header: buffer fabrics %q: want none, or \"\" and at most %d more", ErrCheckpoint, bh.Fabrics, maxFabrics-1)
	}
	seen := make(map[string]bool, len(bh.Fabrics))
	for _, f := range bh.Fabrics {
		if seen[f] {
			return fmt.Errorf("%w: header: buffer fabric %q listed twice", ErrCheckpoint, f)
		}
		seen[f] = true
	}
	return nil
}

// bufferData is a replay buffer's transitions as a checkpoint file holds
// them.
type bufferData struct {
	feat, nextFeat []float32
	actions        []byte
	rewards        []float32
	tags           []byte // fabric indices, uint16s; nil without fabrics
}

// readBufferData reads the transitions of the replay buffer bh describes;
// a short read leaves cr.err set.
func readBufferData(cr *crcReader, bh bufferHeader) bufferData {
	var d bufferData
	d.feat = cr.f32s(bh.Len * bh.FeatureLen)
	d.nextFeat = cr.f32s(bh.Len * bh.FeatureLen)
	d.actions = cr.bytes(bh.Len * bh.Agents)
	d.rewards = cr.f32s(bh.Len * bh.Agents)
	if len(bh.Fabrics) > 0 {
		d.tags = cr.bytes(2 * bh.Len)
	}
	return d
}

// checksum reads the file's CRC-32, the last 4 bytes of the input, and
// compares it with the one computed of everything read before.
func (c *crcReader) checksum() error {
	sum := c.crc.Sum32()
	var tail [5]byte
	n, err := io.ReadFull(c.r, tail[:])
	switch {
	case n < 4:
		return fmt.Errorf("%w: truncated in the checksum", ErrCheckpoint)
	case n > 4 || err == nil:
		return fmt.Errorf("%w: data after the checksum", ErrCheckpoint)
	}
	if got := binary.LittleEndian.Uint32(tail[:4]); got != sum {
		return fmt.Errorf("%w: stored CRC-32 %08x, computed %08x", ErrCheckpoint, got, sum)
	}
	return nil
}

// check returns an error if a transition holds an action or a fabric out
// of range.
func (d *bufferData) check(bh bufferHeader) error {
	for i, a := range d.actions {
		if int(a) >= gnn.NumActions && a != noAction {
			return fmt.Errorf("%w: replay buffer slot %d holds action %d, not below %d", ErrCheckpoint, i/bh.Agents, a, gnn.NumActions)
		}
	}
	for i := 0; i < len(d.tags); i += 2 {
		if k := int(binary.LittleEndian.Uint16(d.tags[i:])); k >= len(bh.Fabrics) {
			return fmt.Errorf("%w: replay buffer slot %d is of fabric %d, of %d", ErrCheckpoint, i/2, k, len(bh.Fabrics))
		}
	}
	return nil
}

// buffer returns the replay buffer of d and bh. Only now, the file whole
// and its checksum right, is the buffer's full capacity allocated.
func (d *bufferData) buffer(bh bufferHeader) *ReplayBuffer {
	b := NewReplayBufferLen(bh.Cap, bh.FeatureLen, bh.Agents)
	b.n, b.next, b.added = bh.Len, bh.Next, bh.Added
	copy(b.feat, d.feat)
	copy(b.nextFeat, d.nextFeat)
	copy(b.actions, d.actions)
	copy(b.rewards, d.rewards)
	if len(bh.Fabrics) > 0 {
		b.fabrics = slices.Clone(bh.Fabrics)
		for i := range b.n {
			b.fab[i] = binary.LittleEndian.Uint16(d.tags[2*i:])
		}
	}
	return b
}

// fits checks that ck's networks and replay buffer have the shapes of
// online and buf, the run's own.
func (ck *Checkpoint) fits(online qnet, buf *ReplayBuffer) error {
	b := ck.Buffer
	n := len(online.params())
	switch {
	case len(ck.Online) != n || len(ck.Target) != n || len(ck.AdamM) != n || len(ck.AdamV) != n:
		return fmt.Errorf("%w: %d parameters (target %d, Adam %d and %d), the network has %d",
			ErrCheckpoint, len(ck.Online), len(ck.Target), len(ck.AdamM), len(ck.AdamV), n)
	case b == nil:
		return fmt.Errorf("%w: no replay buffer", ErrCheckpoint)
	case b.cap != buf.cap || b.featLen != buf.featLen || b.agents != buf.agents:
		return fmt.Errorf("%w: replay buffer of %d transitions of %d features and %d agents, the run's has %d, %d and %d",
			ErrCheckpoint, b.cap, b.featLen, b.agents, buf.cap, buf.featLen, buf.agents)
	case ck.Episodes > 0 && len(ck.Stats) == 0:
		return fmt.Errorf("%w: %d episodes done but no round statistics", ErrCheckpoint, ck.Episodes)
	case len(ck.Best) != n:
		return fmt.Errorf("%w: %d best parameters, the network has %d", ErrCheckpoint, len(ck.Best), n)
	case ck.BestEpisode < -1 || ck.BestEpisode > ck.Episodes:
		return fmt.Errorf("%w: best episode %d of %d", ErrCheckpoint, ck.BestEpisode, ck.Episodes)
	}
	return nil
}
