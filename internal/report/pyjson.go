package report

import "github.com/llmbench/llmbench/internal/pyjson"

// Object is an insertion-ordered JSON object written as Python's
// json.dumps writes it (internal/pyjson).
type Object = pyjson.Object

// NewObject returns an empty Object.
func NewObject() *Object { return pyjson.NewObject() }

// PyRepr formats f like Python's repr(float) (see pyjson.Repr).
func PyRepr(f float64) string { return pyjson.Repr(f) }
