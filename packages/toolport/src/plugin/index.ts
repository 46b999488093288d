/**
 * `toolport/plugin` — what custom-tool authors import. It must stay light: no database, server or provider SDK code
 * (a test checks the import graph). The `tool()` helper arrives with custom code tools (CODE-1).
 */
export type {
  JsonSchema,
  ToolAnnotations,
  ToolContext,
  ToolDefinition,
  ToolLogEntry,
  ToolLogLevel,
  ToolProgress,
} from '../core/tool-types.ts';
export { ToolArgumentError, ToolportError, isToolportError } from '../core/errors.ts';
