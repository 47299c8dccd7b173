package h1

import (
	"bufio"
	"bytes"
	"net/http"
)

// streamHead reads the head of a usual streamed answer in place: an
// HTTP/1.1 status line with code 200, header lines of token names and
// plain values, "Transfer-Encoding: chunked" once and no Content-Length.
// It returns the head's length (through the blank line) and whether the
// server asked to close the connection, or ok false for anything else —
// a head that is not complete in b included — which the caller hands to
// http.ReadResponse. What it accepts, net/http reads the same way
// (FuzzStreamHead): http.ReadResponse spends about 1 µs and a dozen
// objects on a head whose only use here is those two facts
// (BENCHMARKS.md#cache-lines-per-chunk).
func streamHead(b []byte) (n int, closeConn, ok bool) {
	const status = "HTTP/1.1 200"
	if !bytes.HasPrefix(b, []byte(status)) {
		return 0, false, false
	}
	i := len(status)
	line, ok := crlfLine(b, i)
	if !ok || (line > i && (b[i] != ' ' || !PlainValue(b[i+1:line]))) {
		return 0, false, false
	}
	chunked := false
	for i = line + 2; ; {
		end, ok := crlfLine(b, i)
		if !ok {
			return 0, false, false
		}
		if end == i { // the blank line
			return end + 2, closeConn, chunked
		}
		colon := bytes.IndexByte(b[i:end], ':')
		if colon <= 0 {
			return 0, false, false
		}
		name, value := b[i:i+colon], bytes.Trim(b[i+colon+1:end], " \t")
		if !tokenName(name) || !PlainValue(value) {
			return 0, false, false
		}
		switch {
		case equalFold(name, "transfer-encoding"):
			if chunked || !equalFold(value, "chunked") {
				return 0, false, false
			}
			chunked = true
		case equalFold(name, "content-length"), equalFold(name, "trailer"):
			return 0, false, false
		case equalFold(name, "connection"):
			switch {
			case equalFold(value, "close"):
				closeConn = true
			case !equalFold(value, "keep-alive"):
				return 0, false, false
			}
		}
		i = end + 2
	}
}

// crlfLine returns where the line starting at i ends (the index of its
// "\r\n"); false when b holds no "\r\n" after i, or a bare '\r' or '\n'
// comes first.
func crlfLine(b []byte, i int) (int, bool) {
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '\r':
			return j, j+1 < len(b) && b[j+1] == '\n'
		case '\n':
			return 0, false
		}
	}
	return 0, false
}

// tokenName: letters, digits and '-' (every header name an OpenAI server
// sends; anything else goes to net/http).
func tokenName(b []byte) bool {
	for _, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return len(b) > 0
}

// PlainValue says whether b is visible ASCII, spaces and tabs: a header
// value written as it is (Poster.Post writes an X-Request-Id as bytes only if it is one).
func PlainValue(b []byte) bool {
	for _, c := range b {
		if (c < ' ' && c != '\t') || c > '~' {
			return false
		}
	}
	return true
}

// equalFold compares ASCII b with lower-case s, ignoring case.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// chunkedTE is a streamed answer's Response.TransferEncoding, shared.
var chunkedTE = []string{"chunked"}

// streamResponse is the Response for a head streamHead accepted.
func streamResponse(req *http.Request, closeConn bool) *http.Response {
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{}, ContentLength: -1, TransferEncoding: chunkedTE, Close: closeConn, Request: req,
	}
}

// peekHead returns the bytes br holds once they include a blank line (the
// end of a head), br's buffer is full, or a read fails; it consumes none.
// A blank line is "\n\n" or "\n\r\n", as net/http reads it: a head with
// bare LF line ends must not wait for bytes that complete no CRLF head
// (its answer's first chunks would be stamped late).
func peekHead(br *bufio.Reader) []byte {
	for {
		b, _ := br.Peek(br.Buffered())
		if headEnds(b) || len(b) == br.Size() {
			return b
		}
		if _, err := br.Peek(len(b) + 1); err != nil {
			return b
		}
	}
}

// headEnds says whether b holds a blank line ("\n\n" or "\n\r\n"): the
// end of a head, whatever its line ends.
func headEnds(b []byte) bool {
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return false
		}
		i += j + 1
		if i < len(b) && b[i] == '\n' || i+1 < len(b) && b[i] == '\r' && b[i+1] == '\n' {
			return true
		}
	}
}
