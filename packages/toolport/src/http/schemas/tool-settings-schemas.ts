import { Type } from 'typebox';

export const ToolParameterDescriptorSchema = Type.Object(
  {
    name: Type.String(),
    title: Type.String(),
    type: Type.String({ description: 'integer, number, boolean, string, string[], path[] or enum' }),
    description: Type.String(),
    default: Type.Unknown(),
    minimum: Type.Optional(Type.Number()),
    maximum: Type.Optional(Type.Number()),
    allowedValues: Type.Optional(Type.Array(Type.String())),
    unit: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const ToolSettingsDescriptorSchema = Type.Object(
  {
    name: Type.String(),
    title: Type.String(),
    description: Type.String(),
    category: Type.String(),
    source: Type.String({ description: 'builtin, custom, mcp or workspace' }),
    enabled: Type.Boolean(),
    enabledByDefault: Type.Boolean(),
    canDisable: Type.Boolean(),
    parameters: Type.Record(Type.String(), Type.Unknown(), {
      description: 'Effective values: defaults < saved.',
    }),
    parameterDescriptors: Type.Array(ToolParameterDescriptorSchema),
    updatedAt: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'ToolSettingsDescriptor' },
);

export const ToolSettingsListResponseSchema = Type.Object({
  tools: Type.Array(ToolSettingsDescriptorSchema),
});

export const ToolNameParamsSchema = Type.Object({ toolName: Type.String({ maxLength: 64 }) });

export const UpdateToolSettingsBodySchema = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    parameters: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'Setting values by name; `null` resets a setting to its default.',
      }),
    ),
  },
  { additionalProperties: false },
);
