package numpyrand

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// vectors mirrors testdata/dataset/numpy_vectors.json, written by
// scripts/dataset/gen_numpy_vectors.py with Debian's python3-numpy.
type vectors struct {
	NumpyVersion string `json:"numpy_version"`
	SeedStates   []struct {
		Seed  uint64   `json:"seed"`
		State []uint32 `json:"state"`
		Raw   []uint64 `json:"raw"`
	} `json:"seed_states"`
	IntegerCalls []struct {
		Seed  uint64 `json:"seed"`
		Calls []struct {
			Low  int64   `json:"low"`
			High int64   `json:"high"`
			Size int     `json:"size"`
			Out  []int64 `json:"out"`
		} `json:"calls"`
	} `json:"integer_calls"`
	LegacyCalls []struct {
		Seed  int64 `json:"seed"`
		Calls []struct {
			Low  int64   `json:"low"`
			High int64   `json:"high"`
			Size int     `json:"size"`
			Out  []int64 `json:"out"`
		} `json:"calls"`
	} `json:"legacy_calls"`
}

func loadVectors(t *testing.T) vectors {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "dataset", "numpy_vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v vectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.SeedStates) == 0 || len(v.IntegerCalls) == 0 {
		t.Fatal("golden file has no vectors")
	}
	return v
}

func TestSeedSequenceAndPCG64MatchNumPy(t *testing.T) {
	t.Parallel()
	v := loadVectors(t)
	for _, s := range v.SeedStates {
		if got := GenerateState(s.Seed, len(s.State)); !cmp.Equal(got, s.State) {
			t.Errorf("seed %d: SeedSequence.generate_state differs:\n%s", s.Seed, cmp.Diff(s.State, got))
		}
		p := NewPCG64(s.Seed)
		got := make([]uint64, len(s.Raw))
		for i := range got {
			got[i] = p.Uint64()
		}
		if !cmp.Equal(got, s.Raw) {
			t.Errorf("seed %d: PCG64.random_raw differs:\n%s", s.Seed, cmp.Diff(s.Raw, got))
		}
	}
}

// TestIntegersMatchNumPy replays a sequence of Generator.integers calls per
// seed: 32-bit Lemire draws whose spare half-word carries across calls,
// 64-bit ranges, and single-value ranges that draw nothing.
func TestIntegersMatchNumPy(t *testing.T) {
	t.Parallel()
	v := loadVectors(t)
	for _, s := range v.IntegerCalls {
		g, err := DefaultRNG(int64(s.Seed))
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range s.Calls {
			got, err := g.Integers(c.Low, c.High, c.Size)
			if err != nil {
				t.Fatalf("seed %d call %d: %v", s.Seed, i, err)
			}
			if !cmp.Equal(got, c.Out) {
				t.Fatalf("seed %d call %d integers(%d, %d, size=%d):\n%s", s.Seed, i, c.Low, c.High, c.Size, cmp.Diff(c.Out, got))
			}
		}
	}
}

// TestLegacyRandintMatchesNumPy checks np.random.seed + np.random.randint
// (prefix_repetition's generator).
func TestLegacyRandintMatchesNumPy(t *testing.T) {
	t.Parallel()
	v := loadVectors(t)
	if len(v.LegacyCalls) == 0 {
		t.Fatal("no legacy vectors")
	}
	for _, s := range v.LegacyCalls {
		rs, err := NewRandomState(s.Seed)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range s.Calls {
			got, err := rs.Randint(c.Low, c.High, c.Size)
			if err != nil {
				t.Fatalf("seed %d call %d: %v", s.Seed, i, err)
			}
			if !cmp.Equal(got, c.Out) {
				t.Fatalf("seed %d call %d randint(%d, %d, size=%d):\n%s", s.Seed, i, c.Low, c.High, c.Size, cmp.Diff(c.Out, got))
			}
		}
	}
	if _, err := NewRandomState(1 << 32); err == nil {
		t.Error("legacy seed >= 2^32 should be refused like NumPy")
	}
}

func TestIntegersEdgeCases(t *testing.T) {
	t.Parallel()
	g, _ := DefaultRNG(0)
	if _, err := g.Integers(5, 5, 1); err == nil {
		t.Error("integers(5, 5) should fail like NumPy's 'low >= high'")
	}
	if out, err := g.Integers(5, 5, 0); err != nil || len(out) != 0 {
		t.Errorf("size 0 should return empty without error, got %v %v", out, err)
	}
	if _, err := DefaultRNG(-1); err == nil {
		t.Error("negative seed should be rejected like NumPy")
	}
	// A one-value range draws nothing: the next draw equals a fresh generator's.
	a, _ := DefaultRNG(7)
	b, _ := DefaultRNG(7)
	if _, err := a.Integers(3, 4, 10); err != nil {
		t.Fatal(err)
	}
	x, _ := a.Integers(0, 1000, 1)
	y, _ := b.Integers(0, 1000, 1)
	if x[0] != y[0] {
		t.Errorf("single-value range consumed randomness: %d != %d", x[0], y[0])
	}
}

func BenchmarkIntegers32(b *testing.B) {
	g, _ := DefaultRNG(0)
	for b.Loop() {
		if _, err := g.Integers(0, 128000, 1024); err != nil {
			b.Fatal(err)
		}
	}
}
