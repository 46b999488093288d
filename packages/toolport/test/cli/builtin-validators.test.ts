import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Ajv, type ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { AJV_OPTIONS } from '../../src/core/tool-arguments.ts';
import { ToolRegistry } from '../../src/core/tool-registry.ts';
import type { JsonSchema } from '../../src/core/tool-types.ts';
import { listFixedArgumentSchemas } from '../../src/tools/fixed-argument-schemas.ts';
import { registerBuiltinTools } from '../../src/tools/index.ts';

// Issue 11 item 1: `npm run build` compiles the fixed argument schemas into dist/core/builtin-validators.js (the root
// `npm test` builds first). These tests hold the build to every built-in and keep a schema it misses validated.
const distToolArguments = new URL('../../dist/core/tool-arguments.js', import.meta.url).href;
const distValidators = new URL('../../dist/core/builtin-validators.js', import.meta.url).href;
const run = promisify(execFile);

async function loadPrecompiled(): Promise<Map<string, ValidateFunction>> {
  const module = (await import(distValidators)) as {
    VALIDATORS_BY_SCHEMA_TEXT: Map<string, ValidateFunction>;
  };
  return module.VALIDATORS_BY_SCHEMA_TEXT;
}

/** Inputs that probe each keyword of a schema: nothing, an unknown key, a wrong type per property. */
function probes(schema: JsonSchema): unknown[] {
  const properties = (schema.properties ?? {}) as Record<string, { type?: unknown }>;
  const inputs: unknown[] = [{}, { __not_an_argument__: true }];
  for (const [name, property] of Object.entries(properties)) {
    inputs.push({ [name]: property.type === 'string' ? 42 : 'not-this-type' });
    if (property.type === 'string') inputs.push({ [name]: '' });
  }
  return inputs;
}

describe('issue 11 build-time argument validators', () => {
  it('covers every built-in tool, each shell, agent tools and the workspace meta-tools', async () => {
    const precompiled = await loadPrecompiled();
    const fixed = listFixedArgumentSchemas();
    for (const entry of registerBuiltinTools(new ToolRegistry()).listEntries()) {
      expect(fixed, entry.tool.definition.name).toContainEqual(entry.tool.definition.parameters);
    }
    // bash, zsh, powershell, agent tools, GetWorkspaceTools/ReloadWorkspaceTools, ExecuteWorkspaceTool at least.
    expect(fixed.length).toBeGreaterThanOrEqual(
      registerBuiltinTools(new ToolRegistry()).listEntries().length,
    );
    const missing = fixed.map((schema) => JSON.stringify(schema)).filter((text) => !precompiled.has(text));
    expect(missing).toEqual([]);
  });

  it('answers every probe as Ajv compiled at run time does', async () => {
    const precompiled = await loadPrecompiled();
    const ajv = new Ajv(AJV_OPTIONS);
    for (const schema of listFixedArgumentSchemas()) {
      const built = precompiled.get(JSON.stringify(schema))!;
      const compiled = ajv.compile(schema);
      for (const input of probes(schema)) {
        const verdict = built(input);
        expect(verdict, JSON.stringify(input)).toBe(compiled(input));
        if (!verdict) {
          const [ours, theirs] = [built.errors?.[0], compiled.errors?.[0]];
          expect({ keyword: ours?.keyword, path: ours?.instancePath, params: ours?.params }).toEqual({
            keyword: theirs?.keyword,
            path: theirs?.instancePath,
            params: theirs?.params,
          });
        }
      }
    }
  });

  it('validates built-ins in a fresh process without loading Ajv, and a schema it lacks with Ajv', async () => {
    // The child validates each fixed schema (sent as JSON text, as the build keyed them), records whether Ajv's
    // compiler was loaded, then validates a schema no build knows and reports the verdicts.
    const script = `
      import { createRequire } from 'node:module';
      import { validateToolArguments } from ${JSON.stringify(distToolArguments)};
      const require = createRequire(import.meta.url);
      const ajvLoaded = () => Object.keys(require.cache).some((file) => /[\\\\/]ajv[\\\\/]dist[\\\\/](ajv|core)\\.js$/.test(file));
      const verdict = (schema, args) => { try { validateToolArguments(schema, args); return 'ok'; } catch (error) { return error.code; } };
      const schemas = JSON.parse(process.argv[1]);
      const builtins = schemas.map((schema) => verdict(schema, { __not_an_argument__: 1 }));
      const beforeNovel = ajvLoaded();
      const novel = { type: 'object', properties: { added_later: { type: 'integer' } }, required: ['added_later'], additionalProperties: false };
      const later = [verdict(novel, { added_later: 'x' }), verdict(novel, {}), verdict(novel, { added_later: 3 })];
      process.stdout.write(JSON.stringify({ builtins, beforeNovel, later, afterNovel: ajvLoaded() }));
    `;
    const schemas = listFixedArgumentSchemas();
    const { stdout } = await run(process.execPath, [
      '--input-type=module',
      '-e',
      script,
      JSON.stringify(schemas),
    ]);
    const report = JSON.parse(stdout) as {
      builtins: string[];
      beforeNovel: boolean;
      later: string[];
      afterNovel: boolean;
    };
    expect(report.builtins).toEqual(schemas.map(() => 'validation_failed'));
    expect(report.beforeNovel).toBe(false);
    expect(report.later).toEqual(['validation_failed', 'validation_failed', 'ok']);
    expect(report.afterNovel).toBe(true);
  });
});

// Keeps the probe helper honest: a probe set that never fails would prove nothing above.
describe('issue 11 validator probes', () => {
  it('include inputs each built-in schema rejects', () => {
    const ajv = new Ajv(AJV_OPTIONS);
    for (const schema of listFixedArgumentSchemas()) {
      const validate = ajv.compile(schema);
      expect(probes(schema).some((input) => !validate(input))).toBe(true);
    }
  });
});
