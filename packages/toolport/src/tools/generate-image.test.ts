import { describe, expect, it } from 'vitest';
import { getDefaultToolSettings, mergeToolSettings } from '../core/settings-policy.ts';
import type { JsonSchema } from '../core/tool-types.ts';
import { deriveStrictParameters } from '../providers/strict-schema.ts';
import { createGenerateImageToolPlan, generateImageTool } from './generate-image.ts';

const settingsWith = (parameters: Record<string, unknown>) =>
  mergeToolSettings(generateImageTool, undefined, { enabled: true, parameters });

describe('IMG-1 generate_image planning and definition', () => {
  it('caps count by maxImagesPerCall and defaults to one image', () => {
    const settings = settingsWith({ maxImagesPerCall: 2 });
    expect(createGenerateImageToolPlan({ prompt: 'a cat', count: 4 }, settings).count).toBe(2);
    expect(createGenerateImageToolPlan({ prompt: 'a cat' }, settings).count).toBe(1);
  });

  it('uses the model quality only when letAiDecideQuality is on, else the default quality', () => {
    expect(
      createGenerateImageToolPlan({ prompt: 'p', quality: 'high' }, settingsWith({ defaultQuality: 'low' }))
        .quality,
    ).toBe('high');
    expect(
      createGenerateImageToolPlan(
        { prompt: 'p', quality: 'high' },
        settingsWith({ defaultQuality: 'low', letAiDecideQuality: false }),
      ).quality,
    ).toBe('low');
  });

  it('uses the default model unless the model names one', () => {
    const settings = settingsWith({ defaultModel: 'gemini-2.5-flash-image' });
    expect(createGenerateImageToolPlan({ prompt: 'p' }, settings).model).toBe('gemini-2.5-flash-image');
    expect(createGenerateImageToolPlan({ prompt: 'p', model: 'gpt-image-1' }, settings).model).toBe(
      'gpt-image-1',
    );
  });

  it('buildDefinition hides quality when letAiDecideQuality is off and announces the configured count cap', () => {
    const hidden = generateImageTool.buildDefinition!(
      settingsWith({ letAiDecideQuality: false, maxImagesPerCall: 3 }),
    );
    const properties = hidden.parameters.properties as Record<string, JsonSchema>;
    expect(Object.keys(properties)).toEqual(['prompt', 'count', 'model']);
    expect(properties.count!.maximum).toBe(4);
    expect(properties.count!.description).toContain('at most 3 per call');
    const shown = generateImageTool.buildDefinition!(getDefaultToolSettings(generateImageTool));
    expect(Object.keys(shown.parameters.properties as object)).toEqual([
      'prompt',
      'count',
      'quality',
      'model',
    ]);
  });

  it('every definition it can build is strict-compatible (PROV-2)', () => {
    for (const letAiDecideQuality of [true, false]) {
      const definition = generateImageTool.buildDefinition!(settingsWith({ letAiDecideQuality }));
      expect(deriveStrictParameters(definition.parameters).strict).toBe(true);
    }
  });
});
