import { describe, expect, expectTypeOf, it } from 'vitest';
import { tool, z, type ToolContext } from '../../src/plugin/index.ts';

describe('CODE-1 toolport/plugin tool()', () => {
  it('returns its input, exposes zod as tool.schema, and types args from the zod shape', () => {
    const input = {
      description: 'Typed',
      args: {
        name: tool.schema.string(),
        count: tool.schema.number().int().default(1),
        tag: tool.schema
          .string()
          .transform((value) => value.length)
          .optional(),
      },
      execute(args: { name: string; count: number; tag?: number | undefined }, context: ToolContext) {
        return `${args.name}:${args.count}:${context.directory}`;
      },
    };
    const defined = tool({
      ...input,
      execute(args, context) {
        // Output types: defaults filled in, transforms applied.
        expectTypeOf(args.name).toEqualTypeOf<string>();
        expectTypeOf(args.count).toEqualTypeOf<number>();
        expectTypeOf(args.tag).toEqualTypeOf<number | undefined>();
        expectTypeOf(context.run).returns.resolves.toHaveProperty('exitCode');
        return input.execute(args, context);
      },
    });
    expect(defined.description).toBe('Typed');
    expect(tool.schema).toBe(z);
    expect(tool.schema.string().parse('x')).toBe('x');
  });
});
