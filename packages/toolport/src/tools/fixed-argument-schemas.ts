import { getDefaultToolSettings } from '../core/settings-policy.ts';
import type { JsonSchema } from '../core/tool-types.ts';
import { agentToolParameters } from '../custom-tools/agent-tool.ts';
import { workspaceMetaToolParameters } from '../workspace/workspace-tools.ts';
import { listBuiltinTools } from './index.ts';
import { shellToolParameters } from './shell/build-shell-tool.ts';

/**
 * Every argument schema toolport ships whose text is known at build time: the built-ins (with their default
 * `buildDefinition`), the shells even where no interpreter is installed, agent tools and the workspace meta-tools.
 * `scripts/build-validators.mjs` compiles each into standalone code (issue 11 item 1); anything else (code, HTTP,
 * workspace script and MCP tools) is compiled by Ajv at run time. Deduplicated by text, in a stable order.
 */
export function listFixedArgumentSchemas(): JsonSchema[] {
  const schemas: JsonSchema[] = [];
  for (const tool of listBuiltinTools()) {
    schemas.push(tool.definition.parameters);
    if (tool.buildDefinition !== undefined)
      schemas.push(tool.buildDefinition(getDefaultToolSettings(tool)).parameters);
  }
  schemas.push(shellToolParameters(), agentToolParameters(), ...workspaceMetaToolParameters());
  const byText = new Map<string, JsonSchema>();
  for (const schema of schemas) {
    const text = JSON.stringify(schema);
    if (!byText.has(text)) byText.set(text, schema);
  }
  return [...byText.values()];
}
