// Server instructions: what an MCP client shows the model about how to use this server safely.
export const SERVER_INSTRUCTIONS = `zerto-rewind-mcp operates VMware vSphere with Zerto's journal as the undo button.

Targets: every call names its target (a vCenter or ESXi host from list_targets). Reads accept a name, a list, or "all" and return {results:[{target, ok}|{target, error}]}: one dead target never fails the whole call. Changes take exactly one target.

Objects: name VMs, hosts, clusters and datastores by exact name or moid (vm-123). An ambiguous name is refused with the candidate moids: pick one and call again with the moid.

Changes run through one pipeline: policy (policy.yaml; denials say whether override=true would help), then the guard, then the change, and every step is written to an append-only audit log.

Two-phase: destructive tools (delete, revert, remove disk, bulk) and zerto_recover_file never act on the first call. They return a proposal with state "pending", the target (name + host), the affected objects with moids, the VPGs that will be checkpointed, and a token. Re-read the target and objects, then call confirm_action(token) within the TTL, or cancel_action(token). Some targets require a human to approve in the web dashboard: confirm_action is refused for those, and you should tell the user to approve it there.

Guard: before any change to a VM protected by Zerto, the server pins a tagged checkpoint ("ai:<agent> | <action> | vm=<vm> | change=<id> | <utc>") on every VPG protecting it and waits until it is listed; the result's "checkpoint" field says what was pinned, or why nothing was. Tools named <server>__<tool> belong to other MCP servers put behind this one (list_downstream shows them): call them here, and they are policy-checked, checkpointed and audited like this server's own tools; their result comes back unchanged, with the checkpoint in _meta and one text line. For other MCP servers' tools that are NOT behind this one (ssh, ansible, winrm, powershell, smb), call zerto_guard_before_mutate(tool, args) first: that guard only protects changes it is asked about. To undo a bad change to a file, call zerto_recover_file with the tag.

Dry run: when on, everything runs for real except the change and the checkpoint insert; results carry dry_run: true.`;
