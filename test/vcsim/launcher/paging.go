package main

// The launcher's -page-results mode: Debian's vcsim (govmomi 0.24) answers RetrievePropertiesEx
// with the whole result in one RetrieveResult whatever RetrieveOptions.maxObjects asks, and has no
// ContinueRetrievePropertiesEx, while a vCenter answers at most maxObjects objects per page with
// a token for the rest. The listing bench needs the paged case (the round trips, the pipelining of
// the next page), so this collector computes the result as vcsim does, returns the first
// maxObjects objects with a token, and serves the rest from memory, page by page, to
// ContinueRetrievePropertiesEx; CancelRetrievePropertiesEx drops a token. vcsim makes one
// instance per session of the root PropertyCollector's type (session_manager.go, by reflection on
// the registered object's type), so the tokens are per session, as on a vCenter.

import (
	"strconv"
	"sync"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

type pendingResult struct {
	objects []types.ObjectContent
	perPage int
}

// pagingCollector is usable from its zero value: vcsim creates the per-session instances with
// reflect.New.
type pagingCollector struct {
	simulator.PropertyCollector

	pagesMu sync.Mutex // the product asks for page n+1 while page n is still being sent
	pending map[string]pendingResult
	issued  int
}

// installPagingCollector replaces the root PropertyCollector of the model with a pagingCollector
// of the same reference.
func installPagingCollector() {
	ref := simulator.Map.Get(vim25.ServiceInstance).(*simulator.ServiceInstance).Content.PropertyCollector
	pc := &pagingCollector{}
	pc.Self = ref
	simulator.Map.Put(pc)
}

// park keeps the objects after the first page and returns their token. Caller holds pagesMu.
func (pc *pagingCollector) park(rest []types.ObjectContent, perPage int) string {
	if pc.pending == nil {
		pc.pending = map[string]pendingResult{}
	}
	pc.issued++
	token := "page-" + strconv.Itoa(pc.issued)
	pc.pending[token] = pendingResult{objects: rest, perPage: perPage}
	return token
}

func (pc *pagingCollector) RetrievePropertiesEx(ctx *simulator.Context, r *types.RetrievePropertiesEx) soap.HasFault {
	res := pc.PropertyCollector.RetrievePropertiesEx(ctx, r)
	body, ok := res.(*methods.RetrievePropertiesExBody)
	if !ok || body.Res == nil || body.Res.Returnval == nil {
		return res
	}
	perPage := int(r.Options.MaxObjects)
	result := body.Res.Returnval
	if perPage <= 0 || len(result.Objects) <= perPage {
		return res
	}
	pc.pagesMu.Lock()
	result.Token = pc.park(result.Objects[perPage:], perPage)
	pc.pagesMu.Unlock()
	result.Objects = result.Objects[:perPage]
	return res
}

func (pc *pagingCollector) ContinueRetrievePropertiesEx(r *types.ContinueRetrievePropertiesEx) soap.HasFault {
	body := &methods.ContinueRetrievePropertiesExBody{}
	pc.pagesMu.Lock()
	defer pc.pagesMu.Unlock()
	p, ok := pc.pending[r.Token]
	if !ok {
		body.Fault_ = simulator.Fault("", &types.InvalidArgument{InvalidProperty: "token"})
		return body
	}
	delete(pc.pending, r.Token)
	page := types.RetrieveResult{Objects: p.objects}
	if len(p.objects) > p.perPage {
		page.Objects = p.objects[:p.perPage]
		page.Token = pc.park(p.objects[p.perPage:], p.perPage)
	}
	body.Res = &types.ContinueRetrievePropertiesExResponse{Returnval: page}
	return body
}

func (pc *pagingCollector) CancelRetrievePropertiesEx(r *types.CancelRetrievePropertiesEx) soap.HasFault {
	pc.pagesMu.Lock()
	delete(pc.pending, r.Token)
	pc.pagesMu.Unlock()
	return &methods.CancelRetrievePropertiesExBody{Res: &types.CancelRetrievePropertiesExResponse{}}
}
