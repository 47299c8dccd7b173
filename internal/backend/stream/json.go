package stream

import (
	"slices"
	"sync"
	"time"

	"github.com/llmbench/llmbench/internal/jsonscan"
)

// Mode selects which field of a token chunk carries its text.
type Mode uint8

const (
	// ModeAuto (the zero value) takes choices[0].text when it is a string,
	// else choices[0].delta.content. Use it when the API is not known.
	ModeAuto Mode = iota
	// ModeCompletions takes choices[0].text only (/v1/completions), as vLLM
	// does for its completions backend.
	ModeCompletions
	// ModeChat takes choices[0].delta.content only (/v1/chat/completions).
	// Reasoning fields (reasoning_content, reasoning) are not text, as in
	// vLLM, but a chunk carrying only them is still a token chunk.
	ModeChat
)

// Message is what Decoder found in one JSON message. Its byte slices point
// into the message itself (a string without escapes) or the Decoder's
// buffers, and are valid until the next Decode or until the message's
// bytes change, whichever comes first.
type Message struct {
	// Choices is the length of the "choices" array (0 when absent or null).
	// A message with Choices > 0 is a token chunk, whatever its text.
	Choices int
	// Text is the decoded text of choices[0] chosen by the Mode; empty when
	// the field is absent, null or "".
	Text []byte
	// FinishReason is choices[0].finish_reason; "" when absent or null.
	FinishReason string
	// Usage is true when "usage" is a non-empty object (Python truthiness,
	// as vLLM tests it).
	Usage bool
	// PromptTokens and CompletionTokens are usage.prompt_tokens and
	// usage.completion_tokens; -1 when absent or null.
	PromptTokens     int
	CompletionTokens int
	// ErrorMessage is set when the message is an error object
	// ({"error": {"message": ...}} or {"object": "error", "message": ...}),
	// which some servers send mid-stream.
	ErrorMessage string
}

// Decoder decodes OpenAI-style streaming JSON messages. It validates the
// whole message (anything encoding/json would reject is an error) while
// picking out only the fields a benchmark needs, so that decoding a typical
// chunk allocates nothing. The zero value is ready to use; a Decoder is not
// safe for concurrent use.
type Decoder struct {
	// Mode selects the text field; see Mode.
	Mode Mode

	// head is the start of the last message read from its start, up to
	// its "choices" member and the byte after the value before it; at is the
	// scanner's place there and members the members before it. A stream's
	// messages begin alike ({"id":…,"object":…,"created":…,"model":…), so
	// a message that begins with head is read from at, not again from its
	// start: about half of each chunk (BENCHMARKS.md#the-head-of-a-chunk).
	// Only members that change nothing the Decoder reports may
	// be in head (see remember).
	head    []byte
	at      jsonscan.Mark
	members int

	// memo is the last token chunk that reported nothing but its choices
	// and its text, with the text cut out: memo[:memoText] the bytes
	// before it, memo[memoText:] those after. A stream's token chunks
	// differ only in their text, so a message that is those same bytes
	// around a plain string is that chunk with this text, decoded without
	// reading it (recall; BENCHMARKS.md#cache-lines-per-chunk).
	memo        []byte
	memoText    int
	memoChoices int

	// w is the state of one Decode: a Parser lends one from a pool for
	// each Feed; a Decoder used alone makes its own.
	w *work
}

// work is what a Decode needs only while it runs, and what a Parser
// hands its handler. A stream's Decoder and Parser keep only what must
// last from one message to the next; this is lent per Feed from a pool
// (works), so that at 1,000 streams it stays in the cache, where each
// stream's own copy, 5 of its collector's 10 cache lines, had left it
// since the stream's last chunk (BENCHMARKS.md#cache-lines-per-chunk).
type work struct {
	s jsonscan.Scanner
	// text and content are choices[0].text and choices[0].delta.content:
	// in the message when they have no escapes (the usual case: not
	// copied), otherwise unescaped into textBuf and contentBuf.
	text, content       []byte
	textBuf, contentBuf []byte
	scratch             []byte // strings read only to compare or copy
	msg                 Message
	// textAt and contentAt are where text's and content's string lies in
	// the message, for memorize.
	textAt, contentAt span

	// The Parser's, for one Feed or Flush.
	ev  Event
	h   Handler
	now time.Time
}

// works lends work to Parsers.
var works = sync.Pool{New: func() any { return new(work) }}

// release drops w's references to a stream's bytes and handler before w
// goes back to the pool.
func (w *work) release() {
	w.s.Reset(nil)
	w.text, w.content, w.msg.Text = nil, nil, nil
	w.ev.Msg, w.h = nil, nil
}

// errSyntax is wrapped by every malformed-JSON error.
var errSyntax = jsonscan.ErrSyntax

// Decode parses one JSON message. The returned Message is owned by the
// Decoder and valid until the next call. Objects are read in loops, not
// through jsonscan's callbacks: fewer and smaller frames per chunk
// (jsonscan.Scanner.BeginObject says why that matters).
func (d *Decoder) Decode(b []byte) (*Message, error) {
	if d.w == nil {
		d.w = new(work)
	}
	return d.w.decode(d, b)
}

func (w *work) decode(d *Decoder, b []byte) (*Message, error) {
	if w.recall(d, b) {
		return &w.msg, nil
	}
	w.msg = Message{PromptTokens: -1, CompletionTokens: -1}
	w.text, w.content = nil, nil
	w.textAt, w.contentAt = noSpan, noSpan
	var st decodeState
	i, err := w.begin(d, b)
	if err != nil {
		return nil, err
	}
	s := &w.s
	fresh := i == 0
	for ; ; i++ {
		at := s.Mark()
		key, ok, err := s.Member(i)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if fresh && i > 0 && string(key) == "choices" {
			fresh = false
			w.remember(d, b, at, i, &st)
		}
		if err := w.member(key, &st); err != nil {
			return nil, err
		}
	}
	if err := s.End(); err != nil {
		return nil, err
	}
	if st.isErrorObject && w.msg.ErrorMessage == "" {
		w.msg.ErrorMessage = string(st.topMessage)
		if w.msg.ErrorMessage == "" {
			w.msg.ErrorMessage = "error object without a message"
		}
	}
	switch {
	case d.Mode == ModeCompletions || (d.Mode == ModeAuto && st.textSet):
		w.msg.Text = w.text
	case d.Mode == ModeChat || st.contentSet:
		w.msg.Text = w.content
	}
	w.memorize(d, b, &st)
	return &w.msg, nil
}

// span is where a string's contents lie in a message, [start, end);
// noSpan for none.
type span struct{ start, end int }

var noSpan = span{-1, -1}

// memorize keeps b as d's memo when it reported only its choices and a
// text that is its string at the mode's place as it stands in b (no
// escapes): any message that is the same bytes around another such string
// then decodes to the same choices and that string.
func (w *work) memorize(d *Decoder, b []byte, st *decodeState) {
	at := w.textAt
	if d.Mode == ModeChat {
		at = w.contentAt
	}
	m := &w.msg
	neutral := d.Mode != ModeAuto && w.quiet(st) && m.Choices > 0 && m.FinishReason == ""
	if !neutral || at.start < 0 || len(b)-(at.end-at.start) > maxMemo ||
		len(m.Text) != at.end-at.start || !sameBytes(m.Text, b[at.start:at.end]) {
		d.memo = d.memo[:0]
		return
	}
	d.memo = slices.Grow(d.memo[:0], len(b)-(at.end-at.start))
	d.memo = append(append(d.memo, b[:at.start]...), b[at.end:]...)
	d.memoText, d.memoChoices = at.start, m.Choices
}

// maxMemo bounds the bytes a memo keeps, as maxHead does the head's.
const maxMemo = 1024

// sameBytes reports whether a and b are the same memory (not only equal).
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// recall decodes b from d's memo when b is the memo's bytes around a
// string that reads as itself (no escapes, no control characters, valid
// UTF-8): the message is then exactly the memorized one with this text.
func (w *work) recall(d *Decoder, b []byte) bool {
	before, after := d.memo[:min(d.memoText, len(d.memo))], d.memo[min(d.memoText, len(d.memo)):]
	end := len(b) - len(after)
	if len(d.memo) == 0 || end < len(before) || string(b[:len(before)]) != string(before) ||
		string(b[end:]) != string(after) {
		return false
	}
	v := b[len(before):end]
	if !jsonscan.Plain(v) {
		return false
	}
	w.msg = Message{Choices: d.memoChoices, Text: v, PromptTokens: -1, CompletionTokens: -1}
	return true
}

// begin starts reading b: after the '{', or after the head it shares
// with an earlier message of d's. It returns the members already read.
func (w *work) begin(d *Decoder, b []byte) (members int, err error) {
	s := &w.s
	if n := len(d.head); n > 0 && len(b) >= n && string(b[:n]) == string(d.head) {
		s.ResumeAt(b, d.at)
		return d.members, nil
	}
	d.head = d.head[:0]
	s.Reset(b)
	if s.Peek() != '{' {
		return 0, s.Errorf("message is not a JSON object")
	}
	return 0, s.BeginObject()
}

// remember keeps b's head in d, the members before "choices" at at, when
// reading them changed nothing: a message that begins the same way can
// then start at at with the Decoder as it is at the start of a message.
func (w *work) remember(d *Decoder, b []byte, at jsonscan.Mark, members int, st *decodeState) {
	if !w.quiet(st) || w.msg.Choices != 0 || at.Offset() >= len(b) || at.Offset() > maxHead {
		return
	}
	d.head = append(d.head[:0], b[:at.Offset()+1]...)
	d.at, d.members = at, members
}

// quiet reports whether what Decode read so far reports no usage and no
// error: what the head (remember) and the memo (memorize) may hold.
func (w *work) quiet(st *decodeState) bool {
	m := &w.msg
	return !st.isErrorObject && len(st.topMessage) == 0 && !m.Usage &&
		m.PromptTokens == -1 && m.CompletionTokens == -1 && m.ErrorMessage == ""
}

// maxHead bounds the head kept: a stream's is ~100 bytes; a server that
// pads its messages must not make every stream hold a copy of the padding.
const maxHead = 512
