//go:build !(linux || darwin || freebsd)

package h1

import "net"

// canCheckIdle says whether idleConnAlive can look into a socket here.
const canCheckIdle = false

// idleConnAlive cannot look into the socket here: a request on a
// connection the server closed while idle fails, as net/http's does (a
// POST is not replayable; Transport).
func idleConnAlive(net.Conn) bool { return true }

// bytesWaiting cannot look into the socket here: after a failed write the
// transport reports the write's error, not an answer the server may have
// sent before it closed.
func bytesWaiting(net.Conn) bool { return false }
