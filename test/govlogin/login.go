// Package govlogin is the login both Go clients of this repository start from: the conformance
// client (test/conformance/govmomi) and the bench's reference listing (bench/govmomi-list). It does
// what govmomi.NewClient does (a SOAP client, the service content, SessionManager.Login), with TLS
// checked against a CA file when one is given, so neither client keeps its own copy.
//
// Both are built in GOPATH mode (GOPATH=/usr/share/gocode, GO111MODULE=off, Debian's govmomi) and
// import this package by its path relative to theirs.
package govlogin

import (
	"context"
	"net/url"

	"github.com/vmware/govmomi"
	"github.com/vmware/govmomi/session"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/soap"
)

// Login connects to the vim25 endpoint u (https://host:port/sdk) and logs in as user. Without a
// caFile the server's certificate is not checked (vcsim's own self-signed one, in the tests).
func Login(ctx context.Context, u *url.URL, user *url.Userinfo, caFile string) (*govmomi.Client, error) {
	sc := soap.NewClient(u, caFile == "")
	if caFile != "" {
		if err := sc.SetRootCAs(caFile); err != nil {
			return nil, err
		}
	}
	vc, err := vim25.NewClient(ctx, sc)
	if err != nil {
		return nil, err
	}
	c := &govmomi.Client{Client: vc, SessionManager: session.NewManager(vc)}
	if err := c.Login(ctx, user); err != nil {
		return nil, err
	}
	return c, nil
}
