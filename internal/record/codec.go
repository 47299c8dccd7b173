package record

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/internal/atomicfile"
)

// FormatVersion is the value of the "llmbench_records" key in the header
// line of our JSON-lines records format.
const FormatVersion = 1

// Header is the first line of a JSON-lines records file:
// {"llmbench_records":1,"params":{...}}. One Record per line follows, in
// dispatch order.
type Header struct {
	Version int    `json:"llmbench_records"`
	Params  Params `json:"params"`
	// Start anchors the records' clock to the wall clock; nil in files
	// written before anchors existed.
	Start *Anchor `json:"start,omitempty"`
	// Streamed is true for a file written while the run went on (Stream):
	// its params are those known before dispatch, and a closing End line
	// completes them. Without that line the run did not finish.
	Streamed bool `json:"streamed,omitempty"`
	// Worker identifies a distributed run's worker (or a merge of all of
	// them); nil for a single-process run (docs/distributed.md).
	Worker *WorkerInfo `json:"worker,omitempty"`
}

// Format names the layout a records file was read in.
type Format int

// Record file layouts Read recognises.
const (
	// FormatJSONLines is ours: a Header line, then one Record per line.
	FormatJSONLines Format = iota + 1
	// FormatConformance is the conformance input: one object
	// {description, params, requests}.
	FormatConformance
)

// String names the format for messages.
func (f Format) String() string {
	switch f {
	case FormatJSONLines:
		return "llmbench JSON-lines records"
	case FormatConformance:
		return "conformance input"
	}
	return "unknown format"
}

// Writer writes the JSON-lines records format. It buffers; call Flush.
type Writer struct {
	bw   *bufio.Writer
	enc  *json.Encoder
	line []byte
}

// NewWriter writes the header line for p to w and returns a Writer for the
// records that follow.
func NewWriter(w io.Writer, p Params) (*Writer, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(Header{Version: FormatVersion, Params: p}); err != nil {
		return nil, fmt.Errorf("writing records header: %w", err)
	}
	return &Writer{bw: bw, enc: enc}, nil
}

// Write appends one record as one line.
func (w *Writer) Write(r *Record) error {
	line, err := appendJSON(w.line[:0], r, encodeStd)
	if err == nil {
		w.line = line
		_, err = w.bw.Write(line)
	}
	if err != nil {
		return fmt.Errorf("writing record %d: %w", r.Index, err)
	}
	return nil
}

// Flush writes any buffered data to the underlying writer.
func (w *Writer) Flush() error { return w.bw.Flush() }

// WriteJSONLines writes p and recs to w in the JSON-lines records format.
func WriteJSONLines(w io.Writer, p Params, recs []Record) error {
	jw, err := NewWriter(w, p)
	if err != nil {
		return err
	}
	for i := range recs {
		if err := jw.Write(&recs[i]); err != nil {
			return err
		}
	}
	return jw.Flush()
}

// headerDefaults are what an absent header param means in our own format:
// vLLM's defaults, as in the conformance format but without its
// whitespace tokenizer, backend and mock model.
func headerDefaults() Params {
	p := ConformanceDefaults()
	p.Tokenizer, p.Backend, p.ModelID = "", "", ""
	return p
}

// FileMode is the permission of records files: owner only, since records
// carry server-provided text (error messages, generated text).
const FileMode = 0o600

// WriteFile writes p and recs to path in the JSON-lines records format,
// atomically (package atomicfile: on any error the file under its final
// name is left as it was) and with mode FileMode. Its folder must exist.
func WriteFile(path string, p Params, recs []Record) error {
	return atomicfile.Write(path, FileMode, func(w io.Writer) error {
		return WriteJSONLines(w, p, recs)
	})
}

// ReadFile reads a records file in either format (see Read).
func ReadFile(path string) (Params, []Record, Format, error) {
	f, err := os.Open(path)
	if err != nil {
		return Params{}, nil, 0, err
	}
	defer f.Close()
	p, recs, format, err := Read(f)
	if err != nil {
		return Params{}, nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	return p, recs, format, nil
}

// Read reads records in our JSON-lines format or the conformance input
// format, telling them apart by the first line: a header line carries the
// "llmbench_records" key. Every record is validated; errors name the line
// (JSON-lines) or line and column (conformance) of the problem.
func Read(r io.Reader) (Params, []Record, Format, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	first, err := br.ReadBytes('\n')
	if err != nil && err != io.EOF {
		return Params{}, nil, 0, err
	}
	if bytes.Contains(first, headerKey) {
		p, recs, err := readJSONLines(first, br)
		return p, recs, FormatJSONLines, err
	}
	rest, err := io.ReadAll(br)
	if err != nil {
		return Params{}, nil, 0, err
	}
	data := append(first, rest...)
	if len(bytes.TrimSpace(data)) == 0 {
		return Params{}, nil, 0, errors.New("empty file: expected records (llmbench JSON-lines or conformance input)")
	}
	p, recs, err := decodeConformance(data)
	return p, recs, FormatConformance, err
}

// endKey marks the closing line of a streamed records file.
var endKey = []byte(`"llmbench_records_end"`)

func readJSONLines(first []byte, br *bufio.Reader) (Params, []Record, error) {
	h := Header{Params: headerDefaults()}
	if err := unmarshalLine(first, &h, true); err != nil {
		return Params{}, nil, fmt.Errorf("line 1 (header): %w", err)
	}
	if h.Version != FormatVersion {
		return Params{}, nil, fmt.Errorf("line 1 (header): llmbench_records version %d is not supported (want %d)", h.Version, FormatVersion)
	}
	var recs []Record
	var end *End
	lines := lineChecks{limit: -1}
	if n := h.Params.NumPrompts; n != nil {
		lines.limit = *n
	}
	for line := 2; ; line++ {
		b, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return Params{}, nil, fmt.Errorf("line %d: %w", line, err)
		}
		if end != nil && len(bytes.TrimSpace(b)) > 0 {
			return Params{}, nil, fmt.Errorf("line %d: data after the closing llmbench_records_end line", line)
		}
		switch {
		case len(bytes.TrimSpace(b)) == 0:
		case bytes.Contains(b, endKey):
			e := End{Params: headerDefaults()}
			if uerr := unmarshalLine(b, &e, true); uerr != nil {
				return Params{}, nil, fmt.Errorf("line %d (end): %w", line, uerr)
			}
			end = &e
		default:
			rec, rerr := readRecordLine(b, err == io.EOF)
			if rerr == errTornLine {
				break // the last line of a killed run, cut mid-write
			}
			if rerr == nil {
				rerr = lines.check(&rec, line)
			}
			if rerr != nil {
				return Params{}, nil, fmt.Errorf("line %d: %w", line, rerr)
			}
			recs = append(recs, rec)
		}
		if err == io.EOF {
			break
		}
	}
	p := h.Params
	switch {
	case end != nil:
		p = end.Params
	case h.Streamed:
		markUnfinished(&p, recs)
	}
	if h.Streamed {
		// Streamed in completion order; metrics and reports list records
		// in dispatch order, as a run hands them over.
		slices.SortStableFunc(recs, func(a, b Record) int { return cmp.Compare(a.Index, b.Index) })
	}
	if p.NumPrompts == nil {
		// Absent (a hand-written file): at least every open-loop request
		// recorded, so that a file written from what was read declares a
		// num_prompts its records fit (lineChecks).
		n := len(recs)
		for i := range recs {
			if recs[i].User == 0 {
				n = max(n, recs[i].Index+1)
			}
		}
		p.NumPrompts = &n
	}
	if err := fillParams(&p, len(recs)); err != nil {
		return Params{}, nil, fmt.Errorf("line 1 (header): %w", err)
	}
	return p, recs, nil
}

// errTornLine is a last line without its newline that does not parse: a
// write cut off by a kill, not a broken file.
var errTornLine = errors.New("torn last line")

// recordLine is a record line as decoded. "index" and "success" make a
// line a request's record, so both must be there: an empty object or
// another tool's line would otherwise read as a phantom failed request 0.
type recordLine struct {
	Record
	Index   *int  `json:"index"`
	Success *bool `json:"success"`
}

func readRecordLine(b []byte, last bool) (Record, error) {
	var l recordLine
	if uerr := unmarshalLine(b, &l, true); uerr != nil {
		if last && !bytes.HasSuffix(b, []byte("\n")) {
			return Record{}, errTornLine
		}
		if bytes.Contains(b, headerKey) && unmarshalLine(b, &Header{}, true) == nil {
			return Record{}, errors.New("a records header in the middle of the file: two runs' records joined into one file?")
		}
		return Record{}, uerr
	}
	if l.Index == nil || l.Success == nil {
		return Record{}, errors.New(`not a request's record: "index" and "success" are required`)
	}
	rec := l.Record
	rec.Index, rec.Success = *l.Index, *l.Success
	if verr := rec.Validate(); verr != nil {
		return rec, fmt.Errorf("record %d: %w", rec.Index, verr)
	}
	return rec, nil
}

// headerKey marks a header line.
var headerKey = []byte(`"llmbench_records"`)

// lineChecks refuses record lines that cannot belong to the file's run:
// a request recorded twice (a line duplicated, or files concatenated)
// and an index outside the run's plan.
type lineChecks struct {
	seen Indices
	// limit is num_prompts from the header; -1 when absent.
	limit int
}

func (c *lineChecks) check(r *Record, line int) error {
	switch {
	case r.Index < 0:
		return fmt.Errorf("record %d: the request index is negative", r.Index)
	// An open-loop run numbers its requests 0..num_prompts-1 (workers of
	// a distributed run too: they keep the plan's indices). A closed-loop
	// run (records carry a user) bounded by --duration cycles its prompts
	// and numbers requests past num_prompts, so only open-loop records are
	// held to the bound.
	case c.limit >= 0 && r.Index >= c.limit && r.User == 0:
		return fmt.Errorf("record %d: the request index is outside the run's 0..%d (num_prompts %d)", r.Index, c.limit-1, c.limit)
	}
	if prev, dup := c.seen.Add(r.Index, line); dup {
		return fmt.Errorf("record %d: request %d is already recorded on line %d (a duplicated line, or two files joined?)", r.Index, r.Index, prev)
	}
	return nil
}

// markUnfinished fills what a file without its closing line lacks: the
// run died before its end, so its duration is estimated as the end of the
// last record on the run's clock (origin = dispatch start), which is
// vLLM's duration for a run whose last request was the last to finish.
func markUnfinished(p *Params, recs []Record) {
	p.Unfinished = true
	p.Interrupted = true
	if p.DurationS > 0 {
		return
	}
	for i := range recs {
		p.DurationS = max(p.DurationS, recs[i].End())
	}
	if p.DurationS <= 0 {
		// Killed before its first record (or its records all ended at the
		// origin): nothing ran, which a run reports with the same stand-in
		// (bench.FinalParams), so metrics stay defined: zero requests.
		p.DurationS = NothingRanS
	}
}

// NothingRanS is the duration, in seconds, of a run in which nothing ran
// (stopped or killed before any request ended): tiny and positive, so
// that every throughput is a defined 0.
const NothingRanS = 1e-9

// unmarshalLine decodes one JSON value and rewrites decoding errors into
// one line that names the byte offset within the line.
func unmarshalLine(b []byte, v any, strict bool) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return describeJSONError(err, nil)
	}
	// dec.More is false for a stray "]" or "}", so ask for the next token:
	// only the end of input is acceptable.
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("invalid JSON at byte %d: more than one value on the line", dec.InputOffset()+1)
	}
	return nil
}

// describeJSONError turns encoding/json errors into a message with a byte
// offset, and with line and column when data (the whole input) is given.
func describeJSONError(err error, data []byte) error {
	where := func(off int64) string {
		if data == nil {
			return fmt.Sprintf("byte %d", off)
		}
		line, col := lineCol(data, off)
		return fmt.Sprintf("line %d, column %d (byte %d)", line, col, off)
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("invalid JSON at %s: %v", where(syn.Offset), syn)
	case errors.As(err, &typ):
		// A record line decodes through recordLine, which embeds Record.
		field := strings.TrimPrefix(typ.Field, "Record.")
		if field == "" {
			field = "value"
		}
		return fmt.Errorf("invalid JSON at %s: %s must be %s, not %s", where(typ.Offset), field, typ.Type, typ.Value)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("invalid JSON: unexpected end of input")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		// From DisallowUnknownFields: most likely a misspelt key.
		return errors.New(strings.TrimPrefix(err.Error(), "json: "))
	}
	return fmt.Errorf("invalid JSON: %v", err)
}

// lineCol converts a byte offset into 1-based line and column numbers.
func lineCol(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	prefix := data[:off]
	line = bytes.Count(prefix, []byte{'\n'}) + 1
	col = int(off) - (bytes.LastIndexByte(prefix, '\n') + 1)
	if col < 1 {
		col = 1
	}
	return line, col
}

// conformanceFile is the conformance input layout.
type conformanceFile struct {
	Description string          `json:"description"`
	Params      json.RawMessage `json:"params"`
	Requests    []Record        `json:"requests"`
}

// decodeConformance decodes the conformance input format ({description,
// params, requests}); absent params take the format's defaults
// (ConformanceDefaults, num_prompts = number of requests). Record i gets
// Index i.
func decodeConformance(data []byte) (Params, []Record, error) {
	var f conformanceFile
	if err := json.Unmarshal(data, &f); err != nil {
		return Params{}, nil, describeJSONError(err, data)
	}
	if f.Requests == nil {
		return Params{}, nil, errors.New(`no "requests" array: not a records file (want llmbench JSON-lines records or the conformance input format)`)
	}
	if len(f.Params) == 0 {
		return Params{}, nil, errors.New(`no "params" object (it needs at least duration_s)`)
	}
	p := ConformanceDefaults()
	dec := json.NewDecoder(bytes.NewReader(f.Params))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return Params{}, nil, fmt.Errorf("params: %w", describeJSONError(err, nil))
	}
	for i := range f.Requests {
		f.Requests[i].Index = i
		if err := f.Requests[i].Validate(); err != nil {
			return Params{}, nil, fmt.Errorf("requests[%d]: %w", i, err)
		}
	}
	if err := fillParams(&p, len(f.Requests)); err != nil {
		return Params{}, nil, fmt.Errorf("params: %w", err)
	}
	return p, f.Requests, nil
}

// fillParams sets num_prompts from the record count when absent and
// validates the result.
func fillParams(p *Params, n int) error {
	if p.NumPrompts == nil {
		p.NumPrompts = &n
	}
	return p.Validate()
}

// ReadHeader reads the header line of a JSON-lines records file.
func ReadHeader(r io.Reader) (Header, error) {
	first, err := bufio.NewReader(r).ReadBytes('\n')
	if err != nil && err != io.EOF {
		return Header{}, err
	}
	h := Header{Params: headerDefaults()}
	if err := unmarshalLine(first, &h, true); err != nil {
		return Header{}, fmt.Errorf("line 1 (header): %w", err)
	}
	return h, nil
}
