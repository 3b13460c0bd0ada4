// vcsim launcher for the vcsim test project: builds a govmomi simulator model from flags, serves it
// on 127.0.0.1, prints one JSON line {"url": ..., "control": ...} on stdout, and exits when stdin
// closes or on SIGTERM/SIGINT (so a crashed test runner never leaves a simulator behind).
//
// Built by test/support/vcsim.ts with GOPATH=/usr/share/gocode GO111MODULE=off (Debian's govmomi).
// Besides vcsim's native knobs it adds a small control endpoint (/_launcher/...) used by tests to
// inject what vcsim cannot do by itself: hang every SOAP call, answer an HTTP status, and expire
// every session at once (through vcsim's own TerminateSession, so the wire behaviour stays vcsim's).
package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vmware/govmomi"
	"github.com/vmware/govmomi/property"
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

type faults struct {
	mu      sync.Mutex
	hang    bool
	status  int
	release chan struct{}
}

func (f *faults) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/sdk") {
			next.ServeHTTP(w, r)
			return
		}
		f.mu.Lock()
		hang, status, release := f.hang, f.status, f.release
		f.mu.Unlock()
		if hang {
			// A hung vCenter: accept the request, never answer, until released or the client leaves.
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		if status != 0 {
			w.WriteHeader(status)
			_, _ = w.Write([]byte("injected status"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func main() {
	vms := flag.Int("vms", 2, "VMs per resource pool and per standalone host")
	hosts := flag.Int("hosts", 3, "hosts per cluster")
	clusters := flag.Int("clusters", 1, "clusters per datacenter")
	standalone := flag.Int("standalone", 1, "standalone hosts per datacenter")
	datastores := flag.Int("datastores", 1, "datastores")
	user := flag.String("user", "", "enforced user name (any non-empty pair when empty)")
	password := flag.String("password", "", "enforced password")
	uuid := flag.String("uuid", "", "about.instanceUuid of this simulated vCenter")
	idle := flag.Duration("idle", 0, "session idle timeout (0: sessions never expire)")
	certFile := flag.String("tls-cert", "", "PEM certificate: serve https with it")
	keyFile := flag.String("tls-key", "", "PEM private key for -tls-cert")
	delays := flag.String("delay", "", "per-method delays, e.g. RetrievePropertiesEx=300,PowerOnVM_Task=50")
	pageResults := flag.Bool("page-results", false, "honour RetrieveOptions.maxObjects with tokens and ContinueRetrievePropertiesEx (paging.go)")
	flag.Parse()

	m := simulator.VPX()
	m.Datacenter = 1
	m.Cluster = *clusters
	m.ClusterHost = *hosts
	m.Host = *standalone
	m.Machine = *vms
	m.Datastore = *datastores
	m.Autostart = true
	simulator.SessionIdleTimeout = *idle

	if err := m.Create(); err != nil {
		fail(err)
	}
	defer m.Remove()

	if *pageResults {
		installPagingCollector()
	}
	if *uuid != "" {
		si := simulator.Map.Get(vim25.ServiceInstance).(*simulator.ServiceInstance)
		si.Content.About.InstanceUuid = *uuid
	}
	if *delays != "" {
		// After Create(), or model building itself is slowed down.
		m.DelayConfig.MethodDelay = map[string]int{}
		for _, kv := range strings.Split(*delays, ",") {
			parts := strings.SplitN(kv, "=", 2)
			ms, err := strconv.Atoi(parts[len(parts)-1])
			if len(parts) != 2 || err != nil {
				fail(fmt.Errorf("bad -delay entry %q", kv))
			}
			m.DelayConfig.MethodDelay[parts[0]] = ms
		}
	}

	listen := &url.URL{Host: "127.0.0.1:0"}
	if *user != "" {
		listen.User = url.UserPassword(*user, *password)
	}
	m.Service.Listen = listen
	if *certFile != "" {
		cert, err := tls.LoadX509KeyPair(*certFile, *keyFile)
		if err != nil {
			fail(err)
		}
		m.Service.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	}

	s := m.Service.NewServer()
	defer s.Close()

	f := &faults{release: make(chan struct{})}
	mux := m.Service.ServeMux
	// The server was started by NewServer but nobody knows its address yet, so swapping the handler
	// here cannot race with a request.
	s.Config.Handler = f.wrap(s.Config.Handler)

	mux.HandleFunc("/_launcher/hang", func(w http.ResponseWriter, r *http.Request) {
		on := r.URL.Query().Get("on") == "1"
		f.mu.Lock()
		if f.hang && !on {
			close(f.release)
			f.release = make(chan struct{})
		}
		f.hang = on
		f.mu.Unlock()
		_, _ = w.Write([]byte("ok"))
	})
	mux.HandleFunc("/_launcher/status", func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(r.URL.Query().Get("code"))
		f.mu.Lock()
		f.status = code
		f.mu.Unlock()
		_, _ = w.Write([]byte("ok"))
	})
	mux.HandleFunc("/_launcher/expire-sessions", func(w http.ResponseWriter, r *http.Request) {
		n, err := expireSessions(s.URL)
		if err != nil {
			w.WriteHeader(500)
			_, _ = w.Write([]byte(err.Error()))
			return
		}
		_, _ = w.Write([]byte(strconv.Itoa(n)))
	})

	su := *s.URL
	su.User = nil
	control := url.URL{Scheme: su.Scheme, Host: su.Host}
	out, _ := json.Marshal(map[string]interface{}{
		"url":     su.String(),
		"control": control.String(),
		"vms":     m.Count().Machine,
		"hosts":   m.Count().Host,
	})
	fmt.Println(string(out))

	done := make(chan struct{})
	go func() {
		r := bufio.NewReader(os.Stdin)
		for {
			if _, err := r.ReadByte(); err != nil {
				close(done)
				return
			}
		}
	}()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-done:
	case <-sig:
	}
}

// expireSessions logs in as the enforced user and terminates every other session, the way an
// administrator (or vCenter's own idle reaper) would, so clients see a real NotAuthenticated.
func expireSessions(u *url.URL) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := govmomi.NewClient(ctx, u, true)
	if err != nil {
		return 0, err
	}
	defer func() { _ = c.Logout(context.Background()) }()
	var sm mo.SessionManager
	pc := property.DefaultCollector(c.Client)
	if err := pc.RetrieveOne(ctx, *c.ServiceContent.SessionManager, []string{"sessionList", "currentSession"}, &sm); err != nil {
		return 0, err
	}
	var keys []string
	for _, s := range sm.SessionList {
		if sm.CurrentSession == nil || s.Key != sm.CurrentSession.Key {
			keys = append(keys, s.Key)
		}
	}
	if len(keys) == 0 {
		return 0, nil
	}
	_, err = methods.TerminateSession(ctx, c.Client, &types.TerminateSession{This: *c.ServiceContent.SessionManager, SessionId: keys})
	return len(keys), err
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "vcsim-launcher:", err)
	os.Exit(1)
}
