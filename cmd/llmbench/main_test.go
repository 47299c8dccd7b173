package main

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"net/textproto"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestStandardLogCarriesNoSecret: a server that writes stray bytes on a
// kept connection after an answer makes net/http log them with the
// standard log ("Unsolicited response received on idle HTTP channel
// starting with ..."), unredacted; here they echo the API key. Nothing of
// llmbench's writes to the standard log, so the process silences it:
// neither stream may carry the key (README: text a server sends back is
// cleaned of every secret before it is printed).
func TestStandardLogCarriesNoSecret(t *testing.T) {
	cert := httptest.NewTLSServer(nil) // for its certificate only
	cert.Close()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: cert.TLS.Certificates, NextProtos: []string{"http/1.1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go strayAfterAnswer(c)
		}
	}()
	// The process itself (TestMain runs main): the standard log writes to
	// the process's stderr, whatever writers cli.Main is given.
	cmd := exec.CommandContext(t.Context(), os.Args[0], "run", "--base-url", "https://"+ln.Addr().String(), "--insecure",
		"--model", "m", "--tokenizer", "builtin:gpt2", "--num-prompts", "6", "--request-rate", "10", "--random-input-len", "4",
		"--random-output-len", "2", "--request-timeout", "5s", "--disable-tqdm", "--no-config")
	cmd.Env = append(os.Environ(), "LLMBENCH_TEST_MAIN=1", "OPENAI_API_KEY=SECRET456")
	cmd.Dir = t.TempDir()
	text, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if !strings.Contains(string(text), "Serving Benchmark Result") {
		t.Fatalf("no result:\n%s", text)
	}
	if strings.Contains(string(text), "SECRET456") {
		t.Errorf("the API key was printed:\n%s", text)
	}
}

// TestMain runs llmbench itself when a test starts this binary with
// LLMBENCH_TEST_MAIN=1.
func TestMain(m *testing.M) {
	if os.Getenv("LLMBENCH_TEST_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

// strayAfterAnswer answers each request on c with a complete stream,
// then writes a stray head echoing the request's Authorization header on
// the now idle connection and closes it.
func strayAfterAnswer(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	tp := textproto.NewReader(br)
	line, err := tp.ReadLine()
	if err != nil {
		return
	}
	h, err := tp.ReadMIMEHeader()
	if err != nil {
		return
	}
	n, _ := strconv.Atoi(h.Get("Content-Length"))
	if _, err := io.CopyN(io.Discard, br, int64(n)); err != nil {
		return
	}
	if strings.Contains(line, "tokenize") {
		fmt.Fprintf(c, "HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
		return
	}
	body := `data: {"id":"x","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" a","finish_reason":null}]}` + "\n\n" +
		`data: {"id":"x","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" b","finish_reason":"length"}]}` + "\n\n" +
		"data: [DONE]\n\n"
	fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	time.Sleep(20 * time.Millisecond)
	fmt.Fprintf(c, "HTTP/1.1 400 Bad\r\nX-Echo: %s\r\n\r\n", h.Get("Authorization"))
	time.Sleep(50 * time.Millisecond)
}
