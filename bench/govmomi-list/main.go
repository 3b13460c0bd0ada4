// govmomi-list: the reference client of `npm run bench`. It lists VMs the way a Go program on
// govmomi (Debian's golang-github-vmware-govmomi-dev) does, with the request our `list_vms` makes:
// one ContainerView over the VM and inventory types, RetrievePropertiesEx with the same property
// paths and maxObjects, ContinueRetrievePropertiesEx while a token comes back, DestroyView. Each
// page is decoded by govmomi's SOAP layer into typed ObjectContent, then loaded into mo structs
// (mo.LoadObjectContent), which is what govmomi's own retrieval helpers do with a destination.
//
// It logs in once, then serves the bench over stdin/stdout: every line "list" (or "list N", N
// objects per page) runs one listing and answers
// {"ms": ..., "decoded_ms": ..., "objects": ..., "vms": ..., "pages": ..., "max_objects": ...}: `ms` is
// the whole listing, `decoded_ms` stops once every page is decoded into ObjectContent (before
// LoadObjectContent and DestroyView), the stricter reference; `cpu_ms` and `decoded_cpu_ms` are the
// same spans in CPU time of this process (user + system), which a loaded machine moves much less. So the bench can interleave
// govmomi, the HTTP floor and our product call by call on a shared, noisy machine.
//
// Built by scripts/bench-list-vms.mjs with GOPATH=/usr/share/gocode GO111MODULE=off, like the
// vcsim launcher; the login is test/govlogin's, shared with the conformance client.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/vmware/govmomi/view"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"../../test/govlogin"
)

func fail(err error) {
	fmt.Fprintln(os.Stderr, "govmomi-list:", err)
	os.Exit(1)
}

func main() {
	rawURL := flag.String("url", "", "https://host:port/sdk")
	user := flag.String("user", "", "user name")
	password := flag.String("password", "", "password")
	caFile := flag.String("ca", "", "PEM file of the CA that signed the server certificate")
	vmPaths := flag.String("vm-paths", "name", "comma-separated VirtualMachine property paths")
	treeTypes := flag.String("tree-types", "", "comma-separated inventory types fetched with name,parent")
	maxObjects := flag.Int("max-objects", 500, "RetrieveOptions.maxObjects")
	flag.Parse()

	ctx := context.Background()
	u, err := url.Parse(*rawURL)
	if err != nil {
		fail(err)
	}
	if *caFile == "" {
		fail(fmt.Errorf("-ca is required: the bench checks the server certificate as our client does"))
	}
	gc, err := govlogin.Login(ctx, u, url.UserPassword(*user, *password), *caFile)
	if err != nil {
		fail(err)
	}
	c := gc.Client

	kinds := []string{"VirtualMachine"}
	props := []types.PropertySpec{{Type: "VirtualMachine", PathSet: strings.Split(*vmPaths, ",")}}
	for _, t := range strings.Split(*treeTypes, ",") {
		if t != "" {
			kinds = append(kinds, t)
			props = append(props, types.PropertySpec{Type: t, PathSet: []string{"name", "parent"}})
		}
	}

	in := bufio.NewScanner(os.Stdin)
	out := json.NewEncoder(os.Stdout)
	fmt.Println(`{"ready":true}`)
	for in.Scan() {
		// "list" uses -max-objects; "list N" asks for N objects per page (the bench's page-size sweep).
		fields := strings.Fields(in.Text())
		if len(fields) == 0 || fields[0] != "list" {
			continue
		}
		perPage := *maxObjects
		if len(fields) > 1 {
			if _, err := fmt.Sscanf(fields[1], "%d", &perPage); err != nil {
				fail(fmt.Errorf("bad page size %q", fields[1]))
			}
		}
		t0 := time.Now()
		c0 := cpuTime()
		var decoded, decodedCPU time.Duration
		objects, vms, pages, err := list(ctx, c, kinds, props, int32(perPage), func() { decoded = time.Since(t0); decodedCPU = cpuTime() - c0 })
		if err != nil {
			fail(err)
		}
		_ = out.Encode(map[string]interface{}{
			"ms": ms(time.Since(t0)), "decoded_ms": ms(decoded), "objects": objects, "vms": vms, "pages": pages, "max_objects": perPage,
			"cpu_ms": ms(cpuTime() - c0), "decoded_cpu_ms": ms(decodedCPU),
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// cpuTime is this process's user + system CPU time: unlike the wall time, it hardly moves with
// the load of a shared machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// list is one listing: create the view, page through it, load the VMs into mo structs, destroy it.
func list(ctx context.Context, c *vim25.Client, kinds []string, props []types.PropertySpec, maxObjects int32, decoded func()) (int, int, int, error) {
	v, err := view.NewManager(c).CreateContainerView(ctx, c.ServiceContent.RootFolder, kinds, true)
	if err != nil {
		return 0, 0, 0, err
	}
	defer func() { _ = v.Destroy(ctx) }()

	pc := c.ServiceContent.PropertyCollector
	req := types.RetrievePropertiesEx{
		This: pc,
		SpecSet: []types.PropertyFilterSpec{{
			ObjectSet: []types.ObjectSpec{{
				Obj:       v.Reference(),
				Skip:      types.NewBool(true),
				SelectSet: []types.BaseSelectionSpec{&types.TraversalSpec{Type: "ContainerView", Path: "view", Skip: types.NewBool(false)}},
			}},
			PropSet: props,
		}},
		Options: types.RetrieveOptions{MaxObjects: maxObjects},
	}
	res, err := methods.RetrievePropertiesEx(ctx, c, &req)
	if err != nil {
		return 0, 0, 0, err
	}
	pages := 1
	var content []types.ObjectContent
	token := ""
	if res.Returnval != nil {
		content = append(content, res.Returnval.Objects...)
		token = res.Returnval.Token
	}
	for token != "" {
		next, err := methods.ContinueRetrievePropertiesEx(ctx, c, &types.ContinueRetrievePropertiesEx{This: pc, Token: token})
		if err != nil {
			return 0, 0, 0, err
		}
		pages++
		content = append(content, next.Returnval.Objects...)
		token = next.Returnval.Token
	}
	decoded()

	var vmContent []types.ObjectContent
	for _, o := range content {
		if o.Obj.Type == "VirtualMachine" {
			vmContent = append(vmContent, o)
		}
	}
	var vms []mo.VirtualMachine
	if err := mo.LoadObjectContent(vmContent, &vms); err != nil {
		return 0, 0, 0, err
	}
	return len(content), len(vms), pages, nil
}
