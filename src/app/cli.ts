// Command-line flags. Few on purpose: configuration lives in the environment and files, as MCP
// clients expect.
export interface CliOptions {
  help: boolean;
  version: boolean;
  lab: boolean;
  /** `check`: run the configuration checks instead of serving (src/check). */
  command?: 'check';
  /** `check --json`: machine-readable output. */
  json: boolean;
  /** `check --zerto`: probe every configured ZVM's routes against the shapes the client expects. */
  zerto: boolean;
  /** `check --zerto --bundle FILE`: also write a redacted support bundle there. */
  bundle?: string;
  /** `--toolsets a,b` (wins over TOOLSETS). */
  toolsets?: string;
  /** Serve MCP over Streamable HTTP (also MCP_TRANSPORT=http). */
  http: boolean;
  /** HTTP mode without authentication, loopback only. */
  insecureLocal: boolean;
  unknown: string[];
}

export function parseArgs(argv: string[]): CliOptions {
  const opts: CliOptions = { help: false, version: false, lab: false, json: false, zerto: false, http: false, insecureLocal: false, unknown: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') opts.help = true;
    else if (arg === '--version' || arg === '-v') opts.version = true;
    else if (arg === '--lab') opts.lab = true;
    else if (arg === 'check' && i === 0) opts.command = 'check';
    else if (arg === '--json' && opts.command === 'check') opts.json = true;
    else if (arg === '--zerto' && opts.command === 'check') opts.zerto = true;
    else if (arg === '--bundle' && opts.command === 'check' && i + 1 < argv.length) opts.bundle = argv[++i]!;
    else if (arg.startsWith('--toolsets=')) opts.toolsets = arg.slice('--toolsets='.length);
    else if (arg === '--toolsets' && i + 1 < argv.length) opts.toolsets = argv[++i]!;
    else if (arg === '--http') opts.http = true;
    else if (arg === '--insecure-local') opts.insecureLocal = true;
    else opts.unknown.push(arg);
  }
  if (opts.bundle !== undefined && !opts.zerto) opts.unknown.push('--bundle (it goes with check --zerto)');
  return opts;
}

/**
 * ZERTO_REWIND_LAB=true does what --lab does, for launchers that pass settings only as
 * environment (a Claude Desktop bundle's switch). Anything but a clear yes leaves it off.
 */
export function labFromEnvironment(env: Record<string, string | undefined>): boolean {
  return /^(1|true|yes|on)$/i.test(env.ZERTO_REWIND_LAB?.trim() ?? '');
}

export const HELP = `zerto-rewind-mcp: an MCP server (stdio) for VMware vSphere, with Zerto's journal as the undo button.

Usage:
  zerto-rewind-mcp            serve MCP over stdio, configured by the environment
  zerto-rewind-mcp --lab      serve MCP against the built-in simulated lab (two vCenters + a ZVM)
  zerto-rewind-mcp audit verify FILE...   check the audit log's hash chain (rotated files oldest first)
  zerto-rewind-mcp audit verify --database-url URL   the same for central mode's audit table (or DATABASE_URL)
  zerto-rewind-mcp downstream changes | downstream accept SERVER [TOOL...]
                              list downstream tools listed differently from their pinned
                              definition; accept the new definition (the model cannot)
  zerto-rewind-mcp check [--lab] [--json]
                              check the configuration: DNS, TCP, TLS, login, API version and clock
                              of every target and Zerto site, then audit log, policy, dashboard
                              token and restore folder; exit 1 when anything failed
  zerto-rewind-mcp check --zerto [--bundle FILE] [--lab] [--json]
                              probe each configured ZVM read-only: call every route this server
                              uses and name each answer that differs from the shape it expects;
                              --bundle writes a redacted support bundle (names and ids hashed)
  zerto-rewind-mcp --toolsets vsphere_read,zerto
                              expose only these toolsets (also TOOLSETS; 'all' for every tool)
  zerto-rewind-mcp --http     serve MCP over Streamable HTTP for a team (OAuth bearer tokens; see docs/central-mode.md)
  zerto-rewind-mcp --help | --version

Environment:
  TARGETS_FILE             vCenter/ESXi targets (default ./targets.yaml)
  POLICY_FILE              policy rules, hot-reloaded (default ./policy.yaml)
  ZERTO_REWIND_CONFIG      Zerto sites, guard, catalog (config.json)
  AUDIT_LOG_PATH           append-only JSONL audit (default ./audit.jsonl)
  ENABLE_DESTRUCTIVE       register destructive tools (default false)
  DRY_RUN                  run everything except the change (default false)
  CONFIRMATION_TTL_SECONDS proposal lifetime (default 120)
  {PREFIX}_USER/_PASSWORD  credentials per target/site (credential_env_prefix)
  WEB_UI_ENABLED, WEB_UI_HOST, WEB_UI_PORT, WEB_UI_TOKEN   approval dashboard
  LOG_LEVEL                pino level for stderr logs (default info)
  MCP_TRANSPORT=http, MCP_HTTP_HOST, MCP_HTTP_PORT, MCP_PUBLIC_URL, OAUTH_ISSUER   HTTP mode
  DATABASE_URL             shared state in PostgreSQL (HTTP mode, several instances)
  WEB_UI_OIDC_CLIENT_ID, WEB_UI_OIDC_CLIENT_SECRET, WEB_UI_PUBLIC_URL   dashboard sign-in with the IdP (HTTP mode)
  WEB_UI_SESSION_SECRET    seals sign-in cookies, the same on every instance (default: the client secret)
  TOOLSETS                 comma-separated toolsets to expose (default: see docs/toolsets.md)

Relative paths resolve against the folder of ZERTO_REWIND_CONFIG when it is set.
An MCP client starts this program itself; see docs/clients.md for Claude Desktop, VS Code and Cursor.`;
