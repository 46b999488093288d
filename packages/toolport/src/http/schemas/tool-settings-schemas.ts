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
    format: Type.Optional(
      Type.String({
        description: 'What a string setting means: time-zone (IANA name) or locale (BCP 47 tag)',
      }),
    ),
  },
  { additionalProperties: false },
);

/** Checked by the service (422 `invalid_settings` naming `permission`), so the schema only documents it. */
export const PermissionRuleSchema = Type.Unknown({
  description:
    'Issue 16: "allow", "ask" or "deny", or an ordered object of pattern → action (last match wins): shell command ' +
    'globs for bash/zsh/powershell, path globs for file tools, tool-name wildcards otherwise.',
});

export const ToolSettingsDescriptorSchema = Type.Object(
  {
    name: Type.String(),
    title: Type.String(),
    description: Type.String(),
    category: Type.String(),
    source: Type.String({ description: 'builtin, custom, code, workspace, mcp, agent or http' }),
    file: Type.Optional(Type.String({ description: "A code tool's file (CODE-1)." })),
    enabled: Type.Boolean({
      description: 'Effective: false while the operator policy keeps the tool from the caller.',
    }),
    policy: Type.Object(
      {
        allowed: Type.Boolean(),
        reason: Type.Optional(
          Type.String({ description: 'Why not, naming the policy key (e.g. tools.adminOnly).' }),
        ),
      },
      { description: 'AUTH-2: whether the operator policy lets the caller enable this tool.' },
    ),
    enabledByDefault: Type.Boolean(),
    canDisable: Type.Boolean(),
    parameters: Type.Record(Type.String(), Type.Unknown(), {
      description: 'Effective values: defaults < saved.',
    }),
    parameterDescriptors: Type.Array(ToolParameterDescriptorSchema),
    permission: PermissionRuleSchema,
    approvalTimeoutSeconds: Type.Integer({ description: 'Seconds a human has to answer an `ask` (5–3600).' }),
    updatedAt: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'ToolSettingsDescriptor' },
);

export const CodeToolLoadErrorSchema = Type.Object(
  {
    file: Type.String({ description: 'The code-tool file that did not load (absolute path).' }),
    reason: Type.String({
      description: 'Why: a parse error, an exception at import, an export that is no tool.',
    }),
  },
  { $id: 'CodeToolLoadError', additionalProperties: false },
);

export const ToolSettingsListResponseSchema = Type.Object({
  tools: Type.Array(ToolSettingsDescriptorSchema),
  loadErrors: Type.Array(CodeToolLoadErrorSchema, {
    description:
      "Code-tool files of the operator's roots that did not load; every other tool still loads (CODE-1).",
  }),
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
    permission: Type.Optional(PermissionRuleSchema),
    approvalTimeoutSeconds: Type.Optional(
      Type.Unknown({ description: 'An integer 5–3600, or null for the default (300).' }),
    ),
  },
  { additionalProperties: false },
);
