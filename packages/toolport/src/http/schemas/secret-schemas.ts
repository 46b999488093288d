import { Type } from 'typebox';

export const SecretMetadataSchema = Type.Object({
  name: Type.String(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const SecretListResponseSchema = Type.Object({ secrets: Type.Array(SecretMetadataSchema) });

export const SecretNameParamsSchema = Type.Object({ name: Type.String({ maxLength: 128 }) });

export const PutSecretBodySchema = Type.Object(
  { value: Type.String({ description: 'Write-only: never returned by any endpoint.' }) },
  { additionalProperties: false },
);
