package tokenizer

// postProcessor adds special tokens around one encoded sequence when the
// caller asks for them.
type postProcessor interface {
	process(ids []int) []int
	added() int
}

// templateItem is one element of TemplateProcessing's "single" template:
// either the sequence itself or the ids of a special token.
type templateItem struct {
	sequence bool
	ids      []int
}

type templateProcessor []templateItem

func (t templateProcessor) process(ids []int) []int {
	out := make([]int, 0, len(ids)+t.added())
	for _, it := range t {
		if it.sequence {
			out = append(out, ids...)
		} else {
			out = append(out, it.ids...)
		}
	}
	return out
}

func (t templateProcessor) added() int {
	n := 0
	for _, it := range t {
		n += len(it.ids)
	}
	return n
}

// noopProcessor is a post-processor that changes no ids (ByteLevel only
// trims offsets, which llmbench does not track).
type noopProcessor struct{}

func (noopProcessor) process(ids []int) []int { return ids }
func (noopProcessor) added() int              { return 0 }

type seqProcessor []postProcessor

func (s seqProcessor) process(ids []int) []int {
	for _, p := range s {
		ids = p.process(ids)
	}
	return ids
}

func (s seqProcessor) added() int {
	n := 0
	for _, p := range s {
		n += p.added()
	}
	return n
}
