//go:build linux || darwin || freebsd

package h1

import (
	"errors"
	"net"
	"syscall"
)

// canCheckIdle says whether idleConnAlive can look into a socket here.
const canCheckIdle = true

// idleConnAlive reports whether a connection that sat idle in the pool can
// carry another request: the server has not closed it (a read would give
// EOF) nor written anything unasked. net/http's transport learns this from
// the read goroutine it keeps on every connection; the direct transport
// runs none, so it looks once, at reuse, with a receive that neither
// blocks nor consumes (MSG_PEEK|MSG_DONTWAIT; a deadline in the past would
// not do: Go's poller then fails the read without trying it). A connection
// it cannot look into counts as alive: a request on one the server closed
// then fails, as net/http's does (only a write that took no byte is
// retried; Transport).
func idleConnAlive(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return true
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	alive := true
	var b [1]byte
	err = rc.Read(func(fd uintptr) bool {
		_, _, rerr := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		// EAGAIN: nothing to read, the expected state of an idle
		// connection. Anything else is a reset, a close (0 bytes) or bytes
		// nobody asked for.
		alive = (errors.Is(rerr, syscall.EAGAIN) || errors.Is(rerr, syscall.EINTR))
		return true // done: never wait for readiness
	})
	return err == nil && alive
}

// bytesWaiting reports whether bytes wait to be read on c, looking as
// idleConnAlive does (neither blocking nor consuming).
func bytesWaiting(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	waiting := false
	var b [1]byte
	err = rc.Read(func(fd uintptr) bool {
		n, _, rerr := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		waiting = rerr == nil && n > 0
		return true
	})
	return err == nil && waiting
}
