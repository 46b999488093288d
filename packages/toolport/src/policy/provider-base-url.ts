import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { checkOutboundAddress, compileAllowlist } from '../net/ip-address-policy.ts';
import { parseOutboundAllowlist } from '../net/parse-outbound-allowlist.ts';
import type { OperatorPolicy } from './operator-policy.ts';
import { policyDenied, type PolicySubject } from './policy-denied.ts';

/** True when this user's provider configurations are held to NET-1 (`providers.checkUserBaseUrls`, non-admins). */
export function providerRequestsAreChecked(policy: OperatorPolicy, user: PolicySubject): boolean {
  return !user.isAdmin && policy.providers.checkUserBaseUrls;
}

/**
 * NET-1 for a non-admin's provider `baseUrl`, at create and update time: a literal blocked address (loopback, private,
 * link-local and metadata, …) is refused unless `outboundAllow` lists it, and so is a host name that resolves to one
 * now. The request-time check (the SDKs' fetch is the safe fetch) still decides each connection, so a name that
 * rebinds later gets nowhere either. A name that does not resolve now is left to that check.
 */
export async function assertProviderBaseUrlAllowed(
  policy: OperatorPolicy,
  user: PolicySubject,
  baseUrl: string | null,
): Promise<void> {
  if (baseUrl === null || !providerRequestsAreChecked(policy, user)) return;
  const url = new URL(baseUrl);
  if (url.username !== '' || url.password !== '') {
    throw refusal(
      baseUrl,
      'it carries credentials in the URL (put the key in a secret and name it in apiKeySecret)',
    );
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const isAllowlisted = compileAllowlist(parseOutboundAllowlist(policy.outboundAllow));
  let addresses: string[];
  if (isIP(host) !== 0) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
    } catch {
      return;
    }
  }
  for (const address of addresses) {
    const verdict = checkOutboundAddress(address, host, isAllowlisted);
    if (!verdict.allowed) {
      throw refusal(
        baseUrl,
        `${host}${address === host ? '' : ` resolves to ${address}, which`} is a ${verdict.reason ?? 'blocked'} address`,
      );
    }
  }
}

function refusal(baseUrl: string, why: string) {
  return policyDenied(
    'providers.checkUserBaseUrls',
    `policy "providers.checkUserBaseUrls" holds non-admin users' provider base URLs to the outbound policy (NET-1): ` +
      `${JSON.stringify(baseUrl)} is refused because ${why}. An operator can allow a local model server with one ` +
      '"outboundAllow" entry (e.g. 127.0.0.1 or its host name).',
    { argument: 'baseUrl' },
  );
}
