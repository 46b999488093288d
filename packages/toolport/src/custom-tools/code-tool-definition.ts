import { z } from 'zod';
import { ToolArgumentError, describeReceivedValue } from '../core/errors.ts';
import { TIMEOUT_SECONDS_DESCRIPTOR } from '../core/settings-policy.ts';
import type { JsonSchema, RegisteredTool } from '../core/tool-types.ts';
import { createCodeToolContext } from './code-tool-context.ts';

/** What a tool file exports: `tool({...})`'s result or a plain object of the same shape (opencode's contract). */
export interface CodeToolExport {
  description: string;
  args?: unknown;
  execute: (args: never, context: never) => unknown;
}

/** An export that is meant as a tool: an object with an `execute` function. Anything else beside tools is ignored. */
export function looksLikeCodeTool(value: unknown): value is { execute: unknown } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { execute?: unknown }).execute === 'function'
  );
}

function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

function isZodObject(value: unknown): value is z.ZodObject {
  return isZodSchema(value) && (value as z.ZodType)._zod.def.type === 'object';
}

/** Why `value` cannot be a tool, or undefined when it can. */
export function explainNotATool(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null)
    return `it is ${value === null ? 'null' : typeof value}, not a tool`;
  const candidate = value as Record<string, unknown>;
  if (typeof candidate.execute !== 'function') return 'it has no execute(args, context) function';
  if (typeof candidate.description !== 'string' || candidate.description.trim() === '')
    return 'its description is missing or empty';
  return undefined;
}

/** The export's `args` as one zod object: a shape of zod schemas (opencode's form), a `z.object`, or nothing. */
export function toArgumentsSchema(args: unknown): z.ZodObject {
  if (args === undefined) return z.object({});
  if (isZodObject(args)) return args;
  if (typeof args !== 'object' || args === null || Array.isArray(args) || isZodSchema(args)) {
    throw new Error('args must be an object of zod schemas, e.g. { name: tool.schema.string() }');
  }
  for (const [name, schema] of Object.entries(args)) {
    if (!isZodSchema(schema)) {
      throw new Error(
        `args.${name} is not a zod schema (use tool.schema.string(), tool.schema.number(), … from toolport/plugin)`,
      );
    }
  }
  return z.object(args as z.ZodRawShape);
}

/**
 * zod 4's converter on the input side (`io: "input"`, so defaulted and transformed arguments convert), draft-07 for
 * the shared validator. Unknown arguments are refused like a built-in's unless the object says otherwise.
 */
export function toParametersSchema(schema: z.ZodObject): JsonSchema {
  const converted = z.toJSONSchema(schema, { io: 'input', target: 'draft-7' }) as JsonSchema;
  delete converted.$schema;
  converted.additionalProperties ??= false;
  return converted;
}

function issueArgument(path: readonly PropertyKey[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? String(segment) : `.${String(segment)}`;
  }
  return text === '' ? '(arguments)' : text;
}

function valueAtPath(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const segment of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

/** zod's first issue as the shared `validation_failed` error, naming the argument like a built-in's. */
function toArgumentError(error: z.ZodError, args: unknown): ToolArgumentError {
  const issue = error.issues[0];
  if (issue === undefined)
    return new ToolArgumentError('(arguments)', 'valid arguments', 'invalid arguments');
  const argument = issueArgument(issue.path);
  return new ToolArgumentError(
    argument,
    issue.message,
    describeReceivedValue(valueAtPath(args, issue.path)),
    `Invalid argument \`${argument}\`: ${issue.message}.`,
  );
}

function summaryOf(description: string): string {
  const firstLine = description.trim().split('\n')[0]!.trim();
  return firstLine.length > 160 ? `${firstLine.slice(0, 157)}...` : firstLine;
}

export interface CodeToolDefinitionInput {
  name: string;
  exported: CodeToolExport;
  /** The project the tool was loaded for: `context.directory` when the call has no working directory. */
  workspace: string;
}

/**
 * A code tool as a RegisteredTool: the zod args become `parameters` (validated by executeTool like any tool), then
 * zod parses them again at execution so refinements, transforms and defaults apply. Enabled by default, with the
 * one `timeoutSeconds` setting (5–600, default 30). Throws when the export cannot become a tool (a load error).
 */
export function toCodeRegisteredTool(input: CodeToolDefinitionInput): RegisteredTool {
  const { name, exported, workspace } = input;
  const argumentsSchema = toArgumentsSchema(exported.args);
  let parameters: JsonSchema;
  try {
    parameters = toParametersSchema(argumentsSchema);
  } catch (error) {
    throw new Error(
      `its args cannot be converted to JSON Schema (${error instanceof Error ? error.message : String(error)})`,
      { cause: error },
    );
  }
  const execute = exported.execute as (args: unknown, context: unknown) => unknown;
  return {
    definition: { name, description: exported.description, parameters },
    settings: {
      title: name,
      description: summaryOf(exported.description),
      category: 'custom',
      enabledByDefault: true,
      canDisable: true,
      defaultParameters: { timeoutSeconds: TIMEOUT_SECONDS_DESCRIPTOR.default },
      parameterDescriptors: [TIMEOUT_SECONDS_DESCRIPTOR],
    },
    async execute(args, context) {
      const parsed = await argumentsSchema.safeParseAsync(args);
      if (!parsed.success) throw toArgumentError(parsed.error, args);
      return await execute.call(exported, parsed.data, createCodeToolContext(context, workspace));
    },
  };
}
