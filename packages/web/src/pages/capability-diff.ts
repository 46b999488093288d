import type { CapabilityTool } from '../api/types';

export interface CapabilityDiffRow {
  name: string;
  change: 'only in first' | 'only in second' | 'strict differs' | 'schema differs' | 'same';
  detail: string;
}

function schemaOf(wire: unknown): string {
  const record = (typeof wire === 'object' && wire !== null ? wire : {}) as Record<string, unknown>;
  const fn = record.function as Record<string, unknown> | undefined;
  const schema =
    record.parameters ?? record.input_schema ?? record.parametersJsonSchema ?? fn?.parameters ?? record;
  return JSON.stringify(schema);
}

/** What differs between the tool lists two providers would receive, tool by tool. */
export function diffCapabilities(
  first: readonly CapabilityTool[],
  second: readonly CapabilityTool[],
): CapabilityDiffRow[] {
  const left = new Map(first.map((tool) => [tool.name, tool]));
  const right = new Map(second.map((tool) => [tool.name, tool]));
  const names = [...new Set([...left.keys(), ...right.keys()])].sort();
  return names.map((name) => {
    const a = left.get(name);
    const b = right.get(name);
    if (b === undefined) return { name, change: 'only in first', detail: '' };
    if (a === undefined) return { name, change: 'only in second', detail: '' };
    if (a.strict !== b.strict)
      return {
        name,
        change: 'strict differs',
        detail: `${a.strict ? 'strict' : `not strict${a.nonStrictReason === undefined ? '' : ` (${a.nonStrictReason})`}`} vs ${
          b.strict
            ? 'strict'
            : `not strict${b.nonStrictReason === undefined ? '' : ` (${b.nonStrictReason})`}`
        }`,
      };
    if (schemaOf(a.wire) !== schemaOf(b.wire)) return { name, change: 'schema differs', detail: '' };
    return { name, change: 'same', detail: '' };
  });
}
