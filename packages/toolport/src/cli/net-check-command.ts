import { parseArgs } from 'node:util';
import { NET_CHECK_SPEC, parseOptionsOf } from './command-specs.ts';
import { isToolportError } from '../core/errors.ts';
import { compileAllowlist } from '../net/ip-address-policy.ts';
import { judgeOutboundUrl, systemResolve } from '../net/outbound-url.ts';
import { parseOutboundAllowlist } from '../net/parse-outbound-allowlist.ts';
import type { CliIo } from './cli-io.ts';
import { UsageError } from './usage-error.ts';

/**
 * `toolport net check <url> [--no-resolve]` (SPEC NET-1): the verdict the outbound client would reach for a URL under
 * this environment's allowlist (`TOOLPORT_OUTBOUND_ALLOW`), without sending a request. Prints one JSON object and
 * exits 0 (allow) or 1 (block); a malformed URL or another scheme is a `block`, not a usage error.
 */
export async function runNetCheckCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: parseOptionsOf(NET_CHECK_SPEC),
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1)
    throw new UsageError('net check takes exactly one URL: toolport net check <url>');
  let allowlist;
  try {
    allowlist = parseOutboundAllowlist(io.env.TOOLPORT_OUTBOUND_ALLOW);
  } catch (error) {
    if (isToolportError(error)) throw new UsageError(error.message);
    throw error;
  }
  const judgement = await judgeOutboundUrl(
    positionals[0]!,
    compileAllowlist(allowlist),
    values['no-resolve'] ? undefined : systemResolve,
  );
  io.stdout(`${JSON.stringify(judgement)}\n`);
  return judgement.verdict === 'allow' ? 0 : 1;
}
