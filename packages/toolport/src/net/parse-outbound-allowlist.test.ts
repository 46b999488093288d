import { describe, expect, it } from 'vitest';
import { parseOutboundAllowlist } from './parse-outbound-allowlist.ts';

describe('NET-1 TOOLPORT_OUTBOUND_ALLOW', () => {
  it('splits host names from addresses and CIDRs', () => {
    expect(parseOutboundAllowlist(' wiki.internal, 10.1.0.0/16 127.0.0.1,[::1] ')).toEqual({
      hosts: ['wiki.internal'],
      cidrs: ['10.1.0.0/16', '127.0.0.1', '::1'],
    });
    expect(parseOutboundAllowlist(undefined)).toEqual({ hosts: [], cidrs: [] });
  });

  it('refuses a malformed CIDR with the variable named', () => {
    expect(() => parseOutboundAllowlist('10.0.0.0/99')).toThrow(/TOOLPORT_OUTBOUND_ALLOW.*10\.0\.0\.0\/99/);
  });
});
