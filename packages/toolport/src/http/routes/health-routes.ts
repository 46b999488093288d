import { Type } from 'typebox';
import type { ToolportApp } from '../server-types.ts';

export function registerHealthRoutes(app: ToolportApp, version: string): void {
  app.get(
    '/api/health',
    {
      config: { public: true },
      schema: {
        summary: 'Liveness check (no authentication)',
        tags: ['health'],
        security: [],
        response: { 200: Type.Object({ status: Type.Literal('ok'), version: Type.String() }) },
      },
    },
    async () => ({ status: 'ok' as const, version }),
  );
}
