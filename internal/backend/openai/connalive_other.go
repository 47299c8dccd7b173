//go:build !(linux || darwin || freebsd)

package openai

import "net"

// canCheckIdle says whether idleConnAlive can look into a socket here.
const canCheckIdle = false

// idleConnAlive cannot look into the socket here; the retry on an early
// EOF (directTransport.RoundTrip) covers a connection the server closed.
func idleConnAlive(net.Conn) bool { return true }
