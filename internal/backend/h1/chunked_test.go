package h1

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pieceConn is a net.Conn whose reads return its data in pieces of the
// given sizes (cycled), then io.EOF.
type pieceConn struct {
	net.Conn
	data   []byte
	pieces []int
	k      int
}

func (c *pieceConn) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := len(c.data)
	if len(c.pieces) > 0 {
		n = max(1, c.pieces[c.k%len(c.pieces)])
		c.k++
	}
	n = min(n, len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

func (c *pieceConn) SetDeadline(time.Time) error { return nil }

// readChunked reads all of wire through a chunkedBody, headBytes of it
// already buffered in the connection's reader as after the response head.
func readChunked(wire []byte, headBytes int, pieces []int, bufSize int) (data []byte, b *chunkedBody, err error) {
	headBytes = min(headBytes, len(wire))
	conn := &pieceConn{data: wire[headBytes:], pieces: pieces}
	br := bufio.NewReaderSize(bytes.NewReader(wire[:headBytes]), max(16, headBytes))
	_, _ = br.Peek(headBytes)
	b = &chunkedBody{br: br, c: conn}
	buf := make([]byte, max(bufSize, 1))
	for {
		n, rerr := b.Read(buf)
		data = append(data, buf[:n]...)
		if rerr == io.EOF {
			return data, b, nil
		}
		if rerr != nil {
			return data, b, rerr
		}
	}
}

func TestChunkedBody(t *testing.T) {
	for _, tc := range []struct {
		name, wire, want string
		err              error // nil: the body ends cleanly
		reusable         bool
	}{
		{"two chunks", "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", "hello world", nil, true},
		{"upper hex, extension", "A;name=v\r\n0123456789\r\n0\r\n\r\n", "0123456789", nil, true},
		{"whitespace after size", "3 \t\r\nabc\r\n0\r\n\r\n", "abc", nil, true},
		{"trailers dropped", "3\r\nabc\r\n0\r\nX-A: 1\r\nX-B: 2\r\n\r\n", "abc", nil, true},
		{"bare LF ends the trailer section", "3\r\nabc\r\n0\r\n\n", "abc", nil, true},
		{"bare LF ends a trailer line", "3\r\nabc\r\n0\r\nX-A: b\n\n", "abc", nil, true},
		{"bytes after the body", "3\r\nabc\r\n0\r\n\r\nHTTP/1.1 200 OK\r\n", "abc", nil, false},
		{"closed mid chunk", "5\r\nhel", "hel", io.ErrUnexpectedEOF, false},
		{"closed before trailer end", "3\r\nabc\r\n0\r\n", "abc", io.ErrUnexpectedEOF, false},
		{"bad hex", "zz\r\n", "", errChunkHex, false},
		{"space before extension", "3 ;x\r\nabc\r\n0\r\n\r\n", "", errChunkHex, false},
		{"empty size", "\r\nabc", "", errChunkEmpty, false},
		{"bare LF", "3\nabc\r\n", "", errChunkBareLF, false},
		{"CR inside line", "3\rx\nabc", "", errChunkCR, false},
		{"no CRLF after data", "3\r\nabcX\r\n", "abc", errChunkMalformed, false},
		{"17 hex digits", "10000000000000000\r\n", "", errChunkLarge, false},
		{"long line", "1;" + strings.Repeat("x", 5000) + "\r\n", "", errChunkLine, false},
		{"long trailer", "0\r\nX: " + strings.Repeat("y", 5000) + "\r\n\r\n", "", errChunkTrailer, false},
		{"tiny chunks with huge extensions", strings.Repeat("1;"+strings.Repeat("e", 3000)+"\r\nx\r\n", 8), "xxxxx", errChunkExcess, false},
	} {
		for _, pieces := range [][]int{nil, {1}, {2, 3, 7}} {
			data, b, err := readChunked([]byte(tc.wire), 0, pieces, 64)
			if string(data) != tc.want || !errors.Is(err, tc.err) {
				t.Errorf("%s, pieces %v: got %q, %v; want %q, %v", tc.name, pieces, data, err, tc.want, tc.err)
			}
			// Bytes that arrive after the read that ended the body are
			// found when the connection is taken again (take), so only
			// the read that holds them all must see them.
			if err == nil && pieces == nil && b.reusable() != tc.reusable {
				t.Errorf("%s, pieces %v: reusable %v, want %v", tc.name, pieces, b.reusable(), tc.reusable)
			}
		}
	}
}

// FuzzChunkedBody: whatever the bytes and however they arrive, the body
// holds the data net/http's chunked reader returns, and fails where it
// fails. (net/http's reader stops at the last chunk's size line; the
// trailer section after it is ours alone: reaching it is an end.)
func FuzzChunkedBody(f *testing.F) {
	for _, s := range []string{
		"5\r\nhello\r\n0\r\n",
		"1;ext=1\r\na\r\n2 \r\nbc\r\n0\r\n",
		"3\r\nabcd\r\n",
		"fffffffffffffffff\r\n",
		"\r\n",
		"0\n",
	} {
		f.Add([]byte(s), uint8(3), uint8(7), uint8(5))
	}
	f.Fuzz(func(t *testing.T, wire []byte, head, piece, bufSize uint8) {
		want, werr := io.ReadAll(httputil.NewChunkedReader(bytes.NewReader(wire)))
		got, b, gerr := readChunked(wire, int(head), []int{int(piece)}, int(bufSize))
		if !bytes.Equal(got, want) && !(werr != nil && gerr != nil && bytes.HasPrefix(want, got)) {
			t.Fatalf("%q: data %q, net/http %q (errors %v, %v)", wire, got, want, gerr, werr)
		}
		ended := gerr == nil || b.st >= stTrailer
		if (werr == nil) != ended {
			t.Fatalf("%q: error %v (state %d), net/http %v", wire, gerr, b.st, werr)
		}
	})
}

// TestFramingError: the errors http.ReadResponse gives for heads no
// HTTP/1.1 client reads, and the chunked body's, are framing errors
// however they are wrapped; a failed connection is not.
func TestFramingError(t *testing.T) {
	t.Parallel()
	head := func(s string) error {
		_, err := http.ReadResponse(bufio.NewReader(strings.NewReader(s)), nil)
		if err == nil {
			t.Fatalf("%q: read without an error", s)
		}
		return err
	}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"junk before the status line", head("JUNK!HTTP/1.1 200 OK\r\n\r\n"), true},
		{"no status line", head("garbage\r\n\r\n"), true},
		{"status code not 3 digits", head("HTTP/1.1 20 OK\r\n\r\n"), true},
		{"Transfer-Encoding twice", head("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"), true},
		{"Transfer-Encoding gzip", head("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n"), true},
		{"two Content-Lengths", head("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"), true},
		{"bad Content-Length", head("HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n"), true},
		{"header line without a colon", head("HTTP/1.1 200 OK\r\nno colon\r\n\r\n"), true},
		{"wrapped as net/http's Transport does", fmt.Errorf("net/http: HTTP/1.x transport connection broken: %w",
			head("JUNK!HTTP/1.1 200 OK\r\n\r\n")), true},
		{"wrapped as http.Client does", &url.Error{Op: "Post", URL: "http://x", Err: head("garbage\r\n\r\n")}, true},
		{"chunked bare LF", errChunkBareLF, true},
		{"net/http's chunked error, by message", errors.New("invalid byte in chunk length"), true},
		{"head cut short", head("HTTP/1.1 200 OK\r\nX-A: 1"), false},
		{"reset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, false},
		{"closed before an answer", errNoAnswer, false},
		{"head too large", errHeadTooLarge, false},
		{"unexpected EOF", io.ErrUnexpectedEOF, false},
	} {
		if got := FramingError(tc.err); got != tc.want {
			t.Errorf("%s (%v): %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}
