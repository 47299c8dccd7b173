package h1

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/textproto"
	"strings"
)

// chunkedBody reads an HTTP/1.1 chunked body (RFC 9112 §7.1) for the
// direct transport: straight from the socket into the caller's buffer,
// with the framing then removed in place. net/http's body reads through
// its bufio.Reader, a chunked reader and a locked body, and copies every
// byte once more; at 1,000 streams that framing was an eighth of the
// client's user time, most of it cache misses on those objects
// (BENCHMARKS.md#framing-in-place). It accepts and rejects what
// net/http's chunked reader does (FuzzChunkedBody compares the two): hex
// sizes of at most 16 digits, CRLF line ends only, extensions after ';'
// ignored, whitespace only at the end of a size line, lines under 4096
// bytes, and no more than 16 KiB of framing beyond 16 bytes per chunk plus
// twice its data. Trailers after the last chunk are read and dropped,
// 4096 bytes at most; a bare LF ends a trailer line, where net/http's
// reader waits for a CRLF (docs/transport.md, "Bare LF in the trailer
// section").
type chunkedBody struct {
	br      *bufio.Reader // holds the bytes read with the head; read first
	c       net.Conn
	drained bool // br is empty: read c directly

	st           chunkState
	left         uint64 // data bytes left in the current chunk
	size         uint64 // the size being parsed
	digits       int
	line         int   // bytes of the current size or trailer line
	excess       int64 // framing beyond the allowance, as net/http counts it
	trailerBytes int   // of the whole trailer section, bounded
	extra        bool  // bytes followed the body: the connection cannot be kept
}

type chunkState uint8

const (
	stSize      chunkState = iota // hex digits of a size line
	stSizeOWS                     // whitespace after the digits
	stExt                         // a chunk extension, up to CR
	stSizeLF                      // CR seen, LF next
	stData                        // left bytes of data
	stDataCR                      // the CR after the data
	stDataLF                      // and its LF
	stTrailer                     // a trailer line (or the empty last line)
	stTrailerLF                   // CR seen in a trailer line
	stDone                        // the body ended
)

// maxChunkLine bounds a size or trailer line, as net/http does.
const maxChunkLine = 4096

var (
	errChunkMalformed = errors.New("malformed chunked encoding")
	errChunkBareLF    = errors.New("chunked line ends with bare LF")
	errChunkCR        = errors.New("invalid CR in chunked line")
	errChunkLine      = errors.New("header line too long")
	errChunkHex       = errors.New("invalid byte in chunk length")
	errChunkEmpty     = errors.New("empty hex number for chunk length")
	errChunkLarge     = errors.New("http chunk length too large")
	errChunkExcess    = errors.New("chunked encoding contains too much non-data")
	errChunkTrailer   = errors.New("http: suspiciously long trailer after chunked body")
)

// Read fills p with body bytes. It returns io.EOF with the last ones, and
// io.ErrUnexpectedEOF if the connection closes before the body ends.
func (b *chunkedBody) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for b.st != stDone {
		var n int
		var rerr error
		if !b.drained {
			n, _ = b.br.Read(p)
			b.drained = b.br.Buffered() == 0
		} else {
			n, rerr = b.c.Read(p)
		}
		k, err := b.unframe(p[:n])
		switch {
		case err != nil:
			return k, err
		case b.st == stDone:
			return k, io.EOF
		case rerr == io.EOF:
			return k, io.ErrUnexpectedEOF
		case k > 0 || rerr != nil:
			return k, rerr
		}
	}
	return 0, io.EOF
}

// reusable reports whether the connection may carry another request: the
// body ended and nothing followed it.
func (b *chunkedBody) reusable() bool {
	return b.st == stDone && !b.extra && (b.drained || b.br.Buffered() == 0)
}

// unframe removes the framing from p in place and returns how many data
// bytes are left at its start.
func (b *chunkedBody) unframe(p []byte) (k int, err error) {
	for i := 0; i < len(p); {
		if b.st == stData {
			n := int(min(uint64(len(p)-i), b.left))
			k += copy(p[k:], p[i:i+n])
			i += n
			if b.left -= uint64(n); b.left == 0 {
				b.st = stDataCR
			}
			continue
		}
		if b.st == stDone {
			b.extra = true
			return k, nil
		}
		if err := b.step(p[i]); err != nil {
			return k, err
		}
		i++
	}
	return k, nil
}

// step advances the framing by one byte outside chunk data.
func (b *chunkedBody) step(c byte) error {
	switch b.st {
	case stSize, stSizeOWS, stExt:
		return b.sizeLine(c)
	case stSizeLF:
		if c != '\n' {
			return errChunkCR
		}
		return b.beginChunk()
	case stDataCR:
		if c != '\r' {
			return errChunkMalformed
		}
		b.st = stDataLF
	case stDataLF:
		if c != '\n' {
			return errChunkMalformed
		}
		b.st = stSize
	case stTrailer, stTrailerLF:
		return b.trailer(c)
	}
	return nil
}

// sizeLine reads one byte of "hex-size [OWS] [;ext] CRLF".
func (b *chunkedBody) sizeLine(c byte) error {
	switch c {
	case '\r':
		b.st = stSizeLF
		return nil
	case '\n':
		return errChunkBareLF
	}
	// net/http reads the line with its 4096-byte bufio.Reader: the line
	// and its CRLF must fit.
	if b.line++; b.line > maxChunkLine-2 {
		return errChunkLine
	}
	switch {
	case b.st == stExt:
		return nil
	case b.st == stSizeOWS && (c == ' ' || c == '\t'):
		return nil
	case b.st == stSizeOWS:
		// net/http trims whitespace only at the end of the line, then
		// cuts the extension: "1 ;x" leaves "1 ", which is not hex.
		return errChunkHex
	case c == ';':
		b.st = stExt
		return nil
	case c == ' ' || c == '\t':
		b.st = stSizeOWS
		return nil
	}
	v, ok := hexDigit(c)
	if !ok {
		return errChunkHex
	}
	if b.digits == 16 {
		return errChunkLarge
	}
	b.digits++
	b.size = b.size<<4 | uint64(v)
	return nil
}

// beginChunk ends a size line.
func (b *chunkedBody) beginChunk() error {
	if b.digits == 0 {
		return errChunkEmpty
	}
	b.excess += int64(b.line) + 2 - 16 - 2*int64(min(b.size, 1<<40))
	b.excess = max(b.excess, 0)
	if b.excess > 16<<10 {
		return errChunkExcess
	}
	b.left, b.st = b.size, stData
	if b.size == 0 {
		b.st = stTrailer
	}
	b.size, b.digits, b.line = 0, 0, 0
	return nil
}

// trailer reads the trailer section after the last chunk: lines up to an
// empty one, dropped.
func (b *chunkedBody) trailer(c byte) error {
	switch {
	case c == '\n' && b.line == 0:
		b.st = stDone
	case c == '\n':
		b.line, b.st = 0, stTrailer
	case b.st == stTrailerLF:
		return errChunkMalformed
	case c == '\r':
		b.st = stTrailerLF
	default:
		b.line++
	}
	if b.trailerBytes++; b.trailerBytes > maxChunkLine {
		return errChunkTrailer
	}
	return nil
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// HeadTooLarge says whether err is a response head over its size limit,
// from the direct transport or net/http's (whose error has no type).
func HeadTooLarge(err error) bool {
	return errors.Is(err, errHeadTooLarge) || strings.Contains(err.Error(), "server response headers exceeded ")
}

// framingErrors are the chunked body's framing errors: the direct
// transport's, whose messages are net/http's (chunked.go); net/http's own
// are matched by message, as its chunked reader's errors are not exported.
var framingErrors = []error{errChunkMalformed, errChunkBareLF, errChunkCR, errChunkLine, errChunkHex,
	errChunkEmpty, errChunkLarge, errChunkExcess, errChunkTrailer}

// headFramingErrors start the messages with which http.ReadResponse
// rejects a response head no HTTP/1.1 client reads: a status line that is
// not one ("JUNK!HTTP/1.1 200 OK"), a Transfer-Encoding twice or other
// than chunked, a bad or repeated Content-Length. Both transports read
// such heads with it (the direct one when the head is not a usual streamed
// answer's, head.go); its errors have no exported type, and net/http's
// Transport may wrap them ("net/http: HTTP/1.x transport connection
// broken: %w"). A bad header line is a textproto.ProtocolError.
var headFramingErrors = []string{"malformed HTTP response ", "malformed HTTP status code ", "malformed HTTP version ",
	"too many transfer encodings: ", "unsupported transfer encoding: ",
	"http: message cannot contain multiple Content-Length headers", "bad Content-Length ", "invalid empty Content-Length "}

// FramingError says whether err is a framing error, from the transport or
// net/http's: a response head or a chunked body that no HTTP/1.1 client
// reads. The server answers, in a framing llmbench cannot read: not a
// connection failure (docs/transport.md).
func FramingError(err error) bool {
	var pe textproto.ProtocolError
	if errors.As(err, &pe) {
		return true
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		msg := e.Error()
		for _, f := range framingErrors {
			if e == f || msg == f.Error() {
				return true
			}
		}
		for _, prefix := range headFramingErrors {
			if strings.HasPrefix(msg, prefix) {
				return true
			}
		}
	}
	return false
}
