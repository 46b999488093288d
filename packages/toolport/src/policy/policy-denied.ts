import { ToolportError } from '../core/errors.ts';

/** Who is asking: the policy restricts non-admin users; admins are the operator's own accounts (AUTH-2). */
export interface PolicySubject {
  id: string;
  isAdmin: boolean;
}

/** Every refusal by the operator policy: `403 permission_denied`, the message and `details.policyKey` name the key. */
export function policyDenied(
  policyKey: string,
  message: string,
  details: Record<string, unknown> = {},
): ToolportError {
  return new ToolportError('permission_denied', message, { details: { ...details, policyKey } });
}
