package record

import (
	"bytes"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// FuzzAppendJSON: appendJSON writes what encoding/json writes, byte for
// byte, for records whose every field (set through reflection, so a field
// added later is covered) takes values from the seed: floats in both
// formats and at their edges, strings that need escaping, nil and empty
// slices and pointers.
func FuzzAppendJSON(f *testing.F) {
	for i := range uint64(20) {
		f.Add(i, i*7+1)
	}
	f.Fuzz(func(t *testing.T, seed1, seed2 uint64) {
		r := randomRecord(rand.New(rand.NewPCG(seed1, seed2)))
		want, wantErr := encodeStd(r)
		got, err := appendJSON([]byte("prefix"), r, encodeStd)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%+v: err %v, encoding/json's %v", r, err, wantErr)
		}
		if err == nil && !bytes.Equal(got, append([]byte("prefix"), want...)) {
			t.Fatalf("appendJSON\n%s\nencoding/json\n%s", got[len("prefix"):], want)
		}
	})
}

var (
	floats = []float64{0, math.Copysign(0, -1), 1, -1, 0.058092145, 1e-6, 9.99e-7, 1e-7, 1.5e-300, 1e20, 1e21, 123456789e15,
		-2.5e-8, math.MaxFloat64, math.SmallestNonzeroFloat64, 1796166214.571319, 0.1 + 0.2}
	odd   = []float64{math.NaN(), math.Inf(1), math.Inf(-1)}
	texts = []string{"", "plain text", " tok", `quote"d`, `back\slash`, "new\nline", "tab\t", "\x00\x1f", "caf\xc3\xa9",
		"bad\xff", "\u2028\u2029", "<html>&amp;", "emoji 😀", "\x7f"}
)

func randomRecord(rng *rand.Rand) *Record {
	r := new(Record)
	v := reflect.ValueOf(r).Elem()
	for i := range v.NumField() {
		fillValue(rng, v.Field(i))
	}
	return r
}

func fillValue(rng *rand.Rand, f reflect.Value) {
	switch f.Kind() {
	case reflect.Int, reflect.Int64:
		f.SetInt([]int64{0, 1, -1, 42, math.MaxInt32, 1796166214571319095}[rng.IntN(6)])
	case reflect.Bool:
		f.SetBool(rng.IntN(2) == 0)
	case reflect.String:
		f.SetString(texts[rng.IntN(len(texts))])
	case reflect.Float64:
		f.SetFloat(randomFloat(rng))
	case reflect.Pointer:
		if rng.IntN(2) == 0 {
			p := reflect.New(f.Type().Elem())
			fillValue(rng, p.Elem())
			f.Set(p)
		}
	case reflect.Slice:
		switch rng.IntN(3) {
		case 0: // nil
		case 1:
			f.Set(reflect.MakeSlice(f.Type(), 0, 0))
		default:
			n := 1 + rng.IntN(5)
			s := reflect.MakeSlice(f.Type(), n, n)
			for j := range n {
				fillValue(rng, s.Index(j))
			}
			f.Set(s)
		}
	default:
		panic("randomRecord: a field of kind " + f.Kind().String() + " needs a case (and appendJSON a look)")
	}
}

func randomFloat(rng *rand.Rand) float64 {
	switch rng.IntN(20) {
	case 0:
		return odd[rng.IntN(len(odd))]
	case 1, 2, 3:
		return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(60)-30))
	}
	return floats[rng.IntN(len(floats))]
}

// TestAppendJSONAllFields: a record with every field set encodes as
// encoding/json encodes it (the fuzz seeds also run in every test run).
func TestAppendJSONAllFields(t *testing.T) {
	out, intended := 7, 1.25
	r := &Record{Index: 3, Success: true, PromptLen: 10, OutputTokens: &out, ExpectedOutputLen: 8, TTFT: 0.05, ITL: []float64{0.01, 1e-7},
		Latency: 0.2, StartTime: 1.5, GeneratedText: "a \"b\"\n", Error: "e", StartUnixNano: 1, IntendedTime: &intended, QueueTime: 0.001,
		OutputTokensSource: "usage", FinishReason: "length", UsageSeen: true, ErrorClass: "http_5xx", HTTPStatus: 500, User: 2,
		ThinkTime: 0.5, Conversation: 1, Turn: 2, Worker: 3, TokenizerCount: 4}
	want, _ := encodeStd(r)
	got, err := appendJSON(nil, r, encodeStd)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("appendJSON\n%s\nencoding/json\n%s", got, want)
	}
}

// BenchmarkRecordLine: one record of a 100-token stream as a line, by
// appendJSON and by encoding/json.
func BenchmarkRecordLine(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	out := 100
	r := &Record{Index: 17, Success: true, PromptLen: 33, OutputTokens: &out, ExpectedOutputLen: 100, TTFT: 0.058092145,
		Latency: 1.05, StartTime: 0.0123, GeneratedText: " not of stone the river ran", StartUnixNano: 1796166214571319095,
		OutputTokensSource: "usage", FinishReason: "length", UsageSeen: true}
	for range 99 {
		r.ITL = append(r.ITL, 0.01+rng.Float64()*0.001)
	}
	b.Run("append", func(b *testing.B) {
		var line []byte
		for b.Loop() {
			line, _ = appendJSON(line[:0], r, encodeStd)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			_, _ = encodeStd(r)
		}
	})
}
