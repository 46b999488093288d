import { readFileSync } from 'node:fs';
import type { ParseArgsOptionsConfig } from 'node:util';
import { PROVIDER_NAMES } from '../providers/provider-adapter.ts';

/*
 * Every command's flags in one table (CLI-1). Each command parses its argv with `parseOptionsOf(spec)`, and both the
 * top-level usage and `toolport <command> --help` are generated from the same specs, so neither can list a flag that
 * does not exist or miss one that does. Plain data and light imports: `toolport mcp` loads this on its cold path.
 */

export interface FlagSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** The value's placeholder in usage (`DIR`, `URL`, `'<json>'`). String flags only. */
  value?: string;
  /** Repeatable: the parsed value is a list. */
  multiple?: boolean;
  description: string;
}

export interface CommandSpec {
  /** The command path as typed: `tools run`, `serve`. */
  name: string;
  /** Positional arguments as shown in usage: `<name>`. */
  positionals?: string;
  summary: string;
  flags: Readonly<Record<string, FlagSpec>>;
  /** Extra lines for `--help` (defaults, environment variables). */
  notes?: readonly string[];
}

export const TOOLPORT_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const PROVIDERS = PROVIDER_NAMES.join('|');

const DATABASE_FLAGS = {
  'data-dir': {
    type: 'string',
    value: 'DIR',
    description: 'where serve keeps its database, key and admin token (default ~/.local/share/toolport)',
  },
  'database-url': {
    type: 'string',
    value: 'URL',
    description: 'sqlite:<path> or postgres://… (default sqlite:<data dir>/toolport.db)',
  },
} as const satisfies Record<string, FlagSpec>;

/** AUTH-2: the CLI confines file tools to `--workdir` (tools run, mcp, chat). */
const CONFINEMENT_FLAGS = {
  'allow-path': {
    type: 'string',
    value: 'P',
    multiple: true,
    description: 'with --workdir: another directory file tools may reach (repeatable)',
  },
  'no-confine': {
    type: 'boolean',
    description:
      'with --workdir: do not confine file tools to it (/proc, /sys, /dev, the data dir stay denied)',
  },
} as const satisfies Record<string, FlagSpec>;

const WORKDIR_FLAG = {
  type: 'string',
  value: 'DIR',
  description: 'bind a working directory (agent mode, PATH-1)',
} as const satisfies FlagSpec;

export const TOOLS_LIST_SPEC = {
  name: 'tools list',
  summary: 'list the built-in tools and the code tools of the project and the user',
  flags: {
    json: { type: 'boolean', description: 'print JSON' },
    workdir: {
      type: 'string',
      value: 'DIR',
      description: 'the project whose .toolport/tools load (default .)',
    },
  },
} as const satisfies CommandSpec;

export const TOOLS_RUN_SPEC = {
  name: 'tools run',
  positionals: '<name>',
  summary: 'run one tool and print its result as JSON (exit 1 on a tool error, 130 on Ctrl-C)',
  flags: {
    args: { type: 'string', value: "'<json>'", description: 'the arguments, a JSON object' },
    settings: {
      type: 'string',
      value: "'<json>'",
      description: 'setting overrides, e.g. {"enabled":true,"timeoutSeconds":10}',
    },
    workdir: WORKDIR_FLAG,
    mode: { type: 'string', value: 'chat|agent', description: 'default agent with --workdir, else chat' },
    user: { type: 'string', value: 'NAME', description: 'the user id the call runs as (default local)' },
    chat: {
      type: 'string',
      value: 'ID',
      description: 'the chat id read-before-write state is kept under (default cli)',
    },
    ...CONFINEMENT_FLAGS,
  },
  notes: ['On a terminal, progress of long calls is shown on stderr.'],
} as const satisfies CommandSpec;

export const CHAT_SPEC = {
  name: 'chat',
  summary: 'talk to a model with the enabled tools (one-shot with -p, else one line per turn)',
  flags: {
    provider: {
      type: 'string',
      value: PROVIDERS,
      description: 'the wire format (or a --user configuration name)',
    },
    model: { type: 'string', value: 'MODEL', description: 'the model id' },
    'base-url': { type: 'string', value: 'URL', description: "the provider's base URL (local servers)" },
    prompt: { type: 'string', short: 'p', value: '"prompt"', description: 'one turn, then exit' },
    system: { type: 'string', value: 'TEXT', description: 'a system prompt' },
    workdir: WORKDIR_FLAG,
    'max-iterations': { type: 'string', value: 'N', description: 'model steps per turn' },
    'max-tokens': { type: 'string', value: 'N', description: 'output tokens per step' },
    user: {
      type: 'string',
      value: 'NAME',
      description: 'chat as a stored user (their tools, settings, provider configs, secrets)',
    },
    yes: {
      type: 'boolean',
      description: 'approve every tool call a permission rule marks ask (without a terminal, ask denies)',
    },
    ...DATABASE_FLAGS,
    ...CONFINEMENT_FLAGS,
  },
  notes: [
    'API keys: OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY (or the --user secrets).',
    'Exit codes: 0 answered, 1 provider error or iteration limit, 2 bad usage, 130 cancelled.',
  ],
} as const satisfies CommandSpec;

export const MCP_SPEC = {
  name: 'mcp',
  summary: 'serve the enabled tools (a stored user’s with --user) as an MCP server on stdio',
  flags: {
    workdir: WORKDIR_FLAG,
    user: {
      type: 'string',
      value: 'NAME',
      description: "serve a stored user's enabled tools (default admin)",
    },
    ...DATABASE_FLAGS,
    ...CONFINEMENT_FLAGS,
  },
} as const satisfies CommandSpec;

export const SERVE_SPEC = {
  name: 'serve',
  summary: 'run the HTTP API (and /mcp) over a database',
  flags: {
    host: { type: 'string', value: 'HOST', description: 'bind address (default 127.0.0.1, TOOLPORT_HOST)' },
    port: { type: 'string', value: 'PORT', description: 'port (default 7420, TOOLPORT_PORT)' },
    ...DATABASE_FLAGS,
    'log-level': {
      type: 'string',
      value: 'LEVEL',
      description: 'fatal, error, warn, info, debug, trace or silent (default info)',
    },
    'code-tool-roots': {
      type: 'string',
      value: 'DIR:DIR',
      description: 'the only projects whose code tools serve loads (TOOLPORT_CODE_TOOL_ROOTS)',
    },
    policy: {
      type: 'string',
      value: 'FILE',
      description:
        'the operator policy (default <data dir>/policy.json, TOOLPORT_POLICY; docs/operator-policy.md)',
    },
  },
} as const satisfies CommandSpec;

export const USER_CREATE_SPEC = {
  name: 'user create',
  positionals: '<name>',
  summary: 'create a user and print their API token (shown once)',
  flags: { admin: { type: 'boolean', description: 'make the user an admin' }, ...DATABASE_FLAGS },
} as const satisfies CommandSpec;

export const NET_CHECK_SPEC = {
  name: 'net check',
  positionals: '<url>',
  summary: 'judge a URL by the outbound policy (NET-1) without sending a request (exit 0 allow, 1 block)',
  flags: {
    'no-resolve': {
      type: 'boolean',
      description: 'judge a host name by the name rules alone (no DNS lookup; addresses is empty)',
    },
  },
  notes: [
    'Reads the operator allowlist from TOOLPORT_OUTBOUND_ALLOW. Prints {"url","verdict","reason","addresses"}.',
  ],
} as const satisfies CommandSpec;

export const COMMAND_SPECS: readonly CommandSpec[] = [
  TOOLS_LIST_SPEC,
  TOOLS_RUN_SPEC,
  CHAT_SPEC,
  MCP_SPEC,
  SERVE_SPEC,
  USER_CREATE_SPEC,
  NET_CHECK_SPEC,
];

export function commandSpec(name: string): CommandSpec {
  const spec = COMMAND_SPECS.find((candidate) => candidate.name === name);
  if (spec === undefined) throw new Error(`no command spec named ${name}`);
  return spec;
}

type ParseOptionsOf<Flags extends Readonly<Record<string, FlagSpec>>> = {
  -readonly [Name in keyof Flags]: {
    type: Flags[Name]['type'];
    short?: string;
    multiple: Flags[Name] extends { multiple: true } ? true : false;
  };
};

/** The `parseArgs` options of a command: exactly its spec's flags (typed, so `values` keeps its types). */
export function parseOptionsOf<Spec extends CommandSpec>(spec: Spec): ParseOptionsOf<Spec['flags']> {
  const options: ParseArgsOptionsConfig = {};
  for (const [name, flag] of Object.entries(spec.flags)) {
    options[name] = {
      type: flag.type,
      multiple: flag.multiple === true,
      ...(flag.short === undefined ? {} : { short: flag.short }),
    };
  }
  return options as ParseOptionsOf<Spec['flags']>;
}

function flagSynopsis(name: string, flag: FlagSpec): string {
  const spelled = flag.short === undefined ? `--${name}` : `-${flag.short}|--${name}`;
  if (flag.type === 'boolean') return `[${spelled}]`;
  return `[${spelled} ${flag.value ?? 'VALUE'}]${flag.multiple === true ? '…' : ''}`;
}

/** One command's synopsis: `toolport tools run <name> [--args '<json>'] …`. */
export function commandSynopsis(spec: CommandSpec): string {
  const parts = [`toolport ${spec.name}`];
  if (spec.positionals !== undefined) parts.push(spec.positionals);
  for (const [name, flag] of Object.entries(spec.flags)) parts.push(flagSynopsis(name, flag));
  return parts.join(' ');
}

/** `toolport <command> --help`. */
export function commandHelp(spec: CommandSpec): string {
  const rows = Object.entries(spec.flags).map(([name, flag]) => {
    const spelled = `${flag.short === undefined ? '    ' : `-${flag.short}, `}--${name}${flag.type === 'string' ? ` ${flag.value ?? 'VALUE'}` : ''}`;
    return [spelled, flag.description] as const;
  });
  rows.push(['-h, --help', 'show this help'] as const);
  const width = Math.max(...rows.map(([spelled]) => spelled.length));
  return (
    `toolport ${spec.name} — ${spec.summary}\n\nUsage:\n  ${commandSynopsis(spec)}\n\nOptions:\n` +
    rows.map(([spelled, description]) => `  ${spelled.padEnd(width)}  ${description}\n`).join('') +
    (spec.notes === undefined ? '' : `\n${spec.notes.join('\n')}\n`)
  );
}

/** The top-level usage: every command with every flag, and the providers `chat` speaks. */
export function topLevelUsage(): string {
  const commands = COMMAND_SPECS.map((spec) => `  ${commandSynopsis(spec)}\n      ${spec.summary}\n`).join(
    '',
  );
  return (
    `toolport ${TOOLPORT_VERSION} — a tool runtime for LLM agents\n\nUsage:\n${commands}` +
    '  toolport help | --help | -h\n  toolport --version\n\n' +
    `Providers (chat --provider): ${PROVIDER_NAMES.join(', ')}\n` +
    '`toolport <command> --help` describes each flag.\n' +
    'Exit codes: 0 success, 1 the tool (or provider) returned an error, 2 bad usage, 130 interrupted.\n'
  );
}
