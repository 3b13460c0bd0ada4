// Client conformance: the flows behind 57 common govc commands, written on govmomi's own library
// (Debian's golang-github-vmware-govmomi-dev; govc itself is not packaged), run against one vim25
// endpoint. Each flow does what the govc command does through the same govmomi calls (finder,
// property collector, views, task.Wait, event and perf managers) and checks that the change it
// made is visible afterwards, so "the task failed but the change happened" is caught.
//
// Usage: conformance -url https://user:pass@127.0.0.1:port/sdk
// Prints one JSON object per flow on stdout: {"flow":"find -type w","ok":true,"detail":"..."}.
// Exits 0 when every flow ran (whatever their outcome), 2 when it cannot connect at all.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"time"

	"../../govlogin"
)

type result struct {
	Flow   string `json:"flow"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
	Error  string `json:"error,omitempty"`
}

type flow struct {
	name string
	run  func(ctx context.Context, e *env) (string, error)
}

func main() {
	raw := flag.String("url", "", "vim25 SDK URL with user:password")
	timeout := flag.Duration("flow-timeout", 20*time.Second, "limit for one flow")
	flag.Parse()
	u, err := url.Parse(*raw)
	if err != nil || *raw == "" {
		fmt.Fprintln(os.Stderr, "conformance: -url https://user:pass@host:port/sdk is required")
		os.Exit(2)
	}
	ctx := context.Background()
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	c, err := govlogin.Login(cctx, u, u.User, "")
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "conformance: login failed: %v\n", err)
		os.Exit(2)
	}
	e, err := newEnv(ctx, c)
	if err != nil {
		fmt.Fprintf(os.Stderr, "conformance: discovery failed: %v\n", err)
		os.Exit(2)
	}
	out := json.NewEncoder(os.Stdout)
	for _, f := range flows() {
		fctx, cancel := context.WithTimeout(ctx, *timeout)
		detail, err := safeRun(fctx, e, f)
		cancel()
		r := result{Flow: f.name, OK: err == nil, Detail: detail}
		if err != nil {
			r.Error = err.Error()
		}
		_ = out.Encode(r)
	}
	_ = c.Logout(ctx)
}

// safeRun turns a panic inside govmomi (a nil manager reference, say) into a failed flow.
func safeRun(ctx context.Context, e *env, f flow) (detail string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return f.run(ctx, e)
}
