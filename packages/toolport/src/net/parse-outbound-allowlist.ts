import { isIP } from 'node:net';
import { ToolportError } from '../core/errors.ts';
import { compileAllowlist, type OutboundAllowlist } from './ip-address-policy.ts';

/**
 * `TOOLPORT_OUTBOUND_ALLOW`: comma- or space-separated host names and CIDRs (a bare IP means that one address), e.g.
 * `wiki.internal,10.1.0.0/16,127.0.0.1`. Throws a `validation_failed` naming the bad entry.
 */
export function parseOutboundAllowlist(text: string | undefined): OutboundAllowlist {
  const hosts: string[] = [];
  const cidrs: string[] = [];
  for (const entry of (text ?? '').split(/[\s,]+/)) {
    if (entry === '') continue;
    const address = entry.split('/')[0]!.replace(/^\[|\]$/g, '');
    if (entry.includes('/') || isIP(address) !== 0) cidrs.push(entry.includes('/') ? entry : address);
    else hosts.push(entry.toLowerCase());
  }
  const allowlist = { hosts, cidrs };
  try {
    compileAllowlist(allowlist);
  } catch (error) {
    throw new ToolportError('validation_failed', `TOOLPORT_OUTBOUND_ALLOW: ${(error as Error).message}`);
  }
  return allowlist;
}

/** One allowlist from several (the environment's and the policy's), for the one client. */
export function mergeOutboundAllowlists(
  ...lists: ReadonlyArray<OutboundAllowlist | undefined>
): OutboundAllowlist {
  return {
    hosts: lists.flatMap((list) => list?.hosts ?? []),
    cidrs: lists.flatMap((list) => list?.cidrs ?? []),
  };
}
