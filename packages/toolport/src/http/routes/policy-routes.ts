import { ToolportError } from '../../core/errors.ts';
import { OperatorPolicySchema } from '../../policy/operator-policy.ts';
import type { ToolportServices } from '../../services/toolport-services.ts';
import { getAuthenticatedUser } from '../plugins/auth.ts';
import { errorResponses } from '../schemas/error-schemas.ts';
import type { ToolportApp } from '../server-types.ts';

/** SPEC AUTH-2: the effective operator policy (file, defaults and environment overrides merged), for admins only. */
export function registerPolicyRoutes(app: ToolportApp, services: ToolportServices): void {
  app.get(
    '/api/policy',
    {
      schema: {
        summary: 'The effective operator policy (admins only; docs/operator-policy.md)',
        tags: ['policy'],
        response: { 200: OperatorPolicySchema, 403: errorResponses[401], ...errorResponses },
      },
    },
    async (request) => {
      if (!getAuthenticatedUser(request).isAdmin) {
        throw new ToolportError(
          'permission_denied',
          'Only admins may read the operator policy (GET /api/policy). Your limits show in GET /api/settings/tools ' +
            '(each tool\'s "policy" field) and in the refusals, which name the policy key.',
        );
      }
      return services.policy;
    },
  );
}
