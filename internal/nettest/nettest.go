// Package nettest holds network stand-ins for tests: servers on 127.0.0.1
// that misbehave in the ways a client must survive.
package nettest

import (
	"fmt"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Silent returns the address (host:port) of a loopback listener that
// accepts every connection and never sends a byte: the server that hangs
// a client without deadlines. Connections are closed when the test ends.
func Silent(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// EchoHeaders writes a request's headers as one line, sorted, the way
// some servers' error pages and debug handlers echo them back (the
// hostile server of the redaction tests).
func EchoHeaders(r *http.Request) string {
	keys := slices.Sorted(maps.Keys(r.Header))
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %s; ", k, strings.Join(r.Header[k], ","))
	}
	return b.String()
}
